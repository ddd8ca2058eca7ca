-- Demo database: Steam Store Games (Nik Davis, Kaggle 2019, CC BY 4.0), normalized.
--
-- Placeholders, replaced by demo.Load with quoted identifiers before this runs:
--   __SCHEMA__  target schema (Options.Schema, default analytics)
--   __TRGM__    schema that holds pg_trgm: the target schema itself, unless pg_trgm was already
--               installed elsewhere in this database (an extension exists once per database).
--
-- Why pg_trgm goes into the target schema rather than public or an "extensions" schema: the bot
-- runs generated SQL as its reader role with search_path set to the analytics schema only, and
-- the reader is kept out of public (migrations/00003_reader_role.sql). Only here can generated SQL
-- call similarity() or use the % operator unqualified. The trigram indexes speed up ILIKE wherever
-- the extension lives.
--
-- The file has two parts. Part 1 runs before the data is copied in; part 2 (after the
-- "demo:after-load" marker) runs after, because building indexes and checking foreign keys once
-- over loaded tables is several times faster than maintaining them row by row during COPY.
--
-- Only the demo tables are dropped, never the schema: the schema may hold grants or default
-- privileges set by `analyticsbot migrate`, and other objects we must not destroy. No CASCADE, so
-- a user's view over these tables makes the reload fail loudly instead of vanishing silently.
-- And only tables an earlier load created: demo.Load tells them by the COMMENT ON TABLE below
-- and refuses to drop any other relation of their names (a user's own "tags", say). Changing a
-- table's comment here makes schemas loaded before refuse a reload until that table is dropped.

CREATE SCHEMA IF NOT EXISTS __SCHEMA__;
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA __TRGM__;

DROP TABLE IF EXISTS
    __SCHEMA__.app_developers, __SCHEMA__.app_publishers, __SCHEMA__.app_genres,
    __SCHEMA__.app_tags, __SCHEMA__.app_categories, __SCHEMA__.app_platforms,
    __SCHEMA__.developers, __SCHEMA__.publishers, __SCHEMA__.genres,
    __SCHEMA__.tags, __SCHEMA__.categories, __SCHEMA__.platforms,
    __SCHEMA__.apps;

CREATE TABLE __SCHEMA__.apps (
    app_id                   integer PRIMARY KEY,
    name                     text    NOT NULL,
    release_date             date    NOT NULL,
    release_year             integer GENERATED ALWAYS AS (extract(year FROM release_date)::integer) STORED,
    english                  boolean NOT NULL,
    required_age             integer NOT NULL,
    achievements             integer NOT NULL,
    positive_ratings         integer NOT NULL,
    negative_ratings         integer NOT NULL,
    total_ratings            integer GENERATED ALWAYS AS (positive_ratings + negative_ratings) STORED,
    positive_pct             numeric(5,2) GENERATED ALWAYS AS (
        CASE WHEN positive_ratings + negative_ratings > 0
             THEN round(100.0 * positive_ratings / (positive_ratings + negative_ratings), 2)
        END) STORED,
    average_playtime_minutes integer NOT NULL,
    median_playtime_minutes  integer NOT NULL,
    owners_min               bigint  NOT NULL,
    owners_max               bigint  NOT NULL,
    owners_midpoint          bigint  GENERATED ALWAYS AS ((owners_min + owners_max) / 2) STORED,
    price                    numeric(10,2) NOT NULL,
    is_free                  boolean GENERATED ALWAYS AS (price = 0) STORED
);

CREATE TABLE __SCHEMA__.developers (developer_id serial PRIMARY KEY, name text NOT NULL UNIQUE);
CREATE TABLE __SCHEMA__.publishers (publisher_id serial PRIMARY KEY, name text NOT NULL UNIQUE);
CREATE TABLE __SCHEMA__.genres     (genre_id     serial PRIMARY KEY, name text NOT NULL UNIQUE);
CREATE TABLE __SCHEMA__.tags       (tag_id       serial PRIMARY KEY, name text NOT NULL UNIQUE);
CREATE TABLE __SCHEMA__.categories (category_id  serial PRIMARY KEY, name text NOT NULL UNIQUE);
CREATE TABLE __SCHEMA__.platforms  (platform_id  serial PRIMARY KEY, name text NOT NULL UNIQUE);

CREATE TABLE __SCHEMA__.app_developers (app_id integer NOT NULL, developer_id integer NOT NULL, PRIMARY KEY (app_id, developer_id));
CREATE TABLE __SCHEMA__.app_publishers (app_id integer NOT NULL, publisher_id integer NOT NULL, PRIMARY KEY (app_id, publisher_id));
CREATE TABLE __SCHEMA__.app_genres     (app_id integer NOT NULL, genre_id     integer NOT NULL, PRIMARY KEY (app_id, genre_id));
CREATE TABLE __SCHEMA__.app_categories (app_id integer NOT NULL, category_id  integer NOT NULL, PRIMARY KEY (app_id, category_id));
CREATE TABLE __SCHEMA__.app_platforms  (app_id integer NOT NULL, platform_id  integer NOT NULL, PRIMARY KEY (app_id, platform_id));
CREATE TABLE __SCHEMA__.app_tags (
    app_id integer NOT NULL,
    tag_id integer NOT NULL,
    rank   integer NOT NULL CHECK (rank BETWEEN 1 AND 3),
    PRIMARY KEY (app_id, tag_id),
    UNIQUE (app_id, rank)
);

COMMENT ON TABLE __SCHEMA__.apps IS 'One row per game on the Steam store (27,075 rows). Snapshot from the Steam Store and SteamSpy APIs taken around May 2019: release dates run from 1997-06-30 to 2019-05-01, nothing later exists, so questions about later years return no rows. Developers, publishers, genres, tags, categories and platforms live in separate tables joined through the app_* link tables on app_id. Source: Steam Store Games dataset by Nik Davis (Kaggle, 2019), CC BY 4.0.';
COMMENT ON COLUMN __SCHEMA__.apps.app_id IS 'Steam application id (primary key). Join key for every app_* link table: app_developers, app_publishers, app_genres, app_tags, app_categories, app_platforms.';
COMMENT ON COLUMN __SCHEMA__.apps.name IS 'Game title as shown on the store. Not unique (a few titles repeat); case-sensitive, so search with ILIKE ''%word%'' (a trigram index makes ILIKE and similarity() fast).';
COMMENT ON COLUMN __SCHEMA__.apps.release_date IS 'Store release date. Latest value is 2019-05-01 (data ends May 2019).';
COMMENT ON COLUMN __SCHEMA__.apps.release_year IS 'Calendar year of release_date (1997 to 2019; 2019 only covers January to May 1). Use for per-year questions: WHERE release_year = 2018.';
COMMENT ON COLUMN __SCHEMA__.apps.english IS 'True if the game supports the English language.';
COMMENT ON COLUMN __SCHEMA__.apps.required_age IS 'Minimum age in years (PEGI UK rating); 0 means no age restriction.';
COMMENT ON COLUMN __SCHEMA__.apps.achievements IS 'Number of Steam achievements the game offers; 0 means none.';
COMMENT ON COLUMN __SCHEMA__.apps.positive_ratings IS 'Count of positive (thumbs-up) user reviews, from SteamSpy.';
COMMENT ON COLUMN __SCHEMA__.apps.negative_ratings IS 'Count of negative (thumbs-down) user reviews, from SteamSpy.';
COMMENT ON COLUMN __SCHEMA__.apps.total_ratings IS 'positive_ratings + negative_ratings: how many users reviewed the game. Use as a popularity measure or to require a minimum sample before ranking by positive_pct.';
COMMENT ON COLUMN __SCHEMA__.apps.positive_pct IS 'Share of reviews that are positive, in percent from 0 to 100 with 2 decimals: 100 * positive_ratings / total_ratings. NULL when the game has no ratings. Filter on total_ratings (e.g. >= 1000) before ranking, or tiny games with one good review come first.';
COMMENT ON COLUMN __SCHEMA__.apps.average_playtime_minutes IS 'Average all-time playtime per owner, in MINUTES (divide by 60.0 for hours), from SteamSpy. 0 often means no data.';
COMMENT ON COLUMN __SCHEMA__.apps.median_playtime_minutes IS 'Median all-time playtime per owner, in MINUTES (divide by 60.0 for hours), from SteamSpy. 0 often means no data.';
COMMENT ON COLUMN __SCHEMA__.apps.owners_min IS 'Lower bound of the SteamSpy owners estimate. Owners is a range bucket (e.g. 20000-50000), not an exact count; 0-20000 is the most common bucket.';
COMMENT ON COLUMN __SCHEMA__.apps.owners_max IS 'Upper bound of the SteamSpy owners estimate range (e.g. 50000 for 20000-50000). Largest bucket is 100000000-200000000.';
COMMENT ON COLUMN __SCHEMA__.apps.owners_midpoint IS '(owners_min + owners_max) / 2: a rough single number for the SteamSpy owners range estimate, usable for sorting or summing, but only an estimate.';
COMMENT ON COLUMN __SCHEMA__.apps.price IS 'Full (non-discounted) store price in GBP (pounds sterling) as of May 2019; 0 means free to play.';
COMMENT ON COLUMN __SCHEMA__.apps.is_free IS 'True when price = 0 (free to play / free).';

COMMENT ON TABLE __SCHEMA__.developers IS 'Game developers (studios or people), one row per distinct name. Join to apps through app_developers: apps JOIN app_developers USING (app_id) JOIN developers USING (developer_id). A game can have several developers.';
COMMENT ON COLUMN __SCHEMA__.developers.developer_id IS 'Surrogate key, referenced by app_developers.developer_id. Join on it; never hard-code ids.';
COMMENT ON COLUMN __SCHEMA__.developers.name IS 'Developer name as written on the store, e.g. ''Valve''. Case-sensitive and spelled inconsistently at times; match with ILIKE.';
COMMENT ON TABLE __SCHEMA__.publishers IS 'Game publishers, one row per distinct name. Join to apps through app_publishers: apps JOIN app_publishers USING (app_id) JOIN publishers USING (publisher_id). A game can have several publishers.';
COMMENT ON COLUMN __SCHEMA__.publishers.publisher_id IS 'Surrogate key, referenced by app_publishers.publisher_id. Join on it; never hard-code ids.';
COMMENT ON COLUMN __SCHEMA__.publishers.name IS 'Publisher name as written on the store, e.g. ''Ubisoft''. Case-sensitive; match with ILIKE.';
COMMENT ON TABLE __SCHEMA__.genres IS 'Steam store genres (Action, Indie, RPG, Strategy, Free to Play, ...), one row each. Join to apps through app_genres: apps JOIN app_genres USING (app_id) JOIN genres USING (genre_id). A game usually has several genres, so counts per genre add up to more than the number of games.';
COMMENT ON COLUMN __SCHEMA__.genres.genre_id IS 'Surrogate key, referenced by app_genres.genre_id. Join on it; never hard-code ids.';
COMMENT ON COLUMN __SCHEMA__.genres.name IS 'Genre name as used by the Steam store, e.g. ''Action'', ''Indie'', ''RPG'', ''Free to Play''.';
COMMENT ON TABLE __SCHEMA__.tags IS 'SteamSpy user tags (community labels such as ''Open World'', ''Survival'', ''FPS''); the dataset keeps at most the top 3 per game. Join through app_tags: apps JOIN app_tags USING (app_id) JOIN tags USING (tag_id).';
COMMENT ON COLUMN __SCHEMA__.tags.tag_id IS 'Surrogate key, referenced by app_tags.tag_id. Join on it; never hard-code ids.';
COMMENT ON COLUMN __SCHEMA__.tags.name IS 'Tag name as shown by SteamSpy, e.g. ''Open World'', ''Roguelike'', ''VR''.';
COMMENT ON TABLE __SCHEMA__.categories IS 'Steam store feature categories (Single-player, Multi-player, Co-op, Steam Achievements, Full controller support, ...). Join through app_categories: apps JOIN app_categories USING (app_id) JOIN categories USING (category_id).';
COMMENT ON COLUMN __SCHEMA__.categories.category_id IS 'Surrogate key, referenced by app_categories.category_id. Join on it; never hard-code ids.';
COMMENT ON COLUMN __SCHEMA__.categories.name IS 'Category name as used by the Steam store, e.g. ''Single-player'', ''Multi-player'', ''Steam Trading Cards''.';
COMMENT ON TABLE __SCHEMA__.platforms IS 'Operating systems a game runs on: exactly three rows, ''windows'', ''mac'' and ''linux'' (lower case). Join through app_platforms: apps JOIN app_platforms USING (app_id) JOIN platforms USING (platform_id).';
COMMENT ON COLUMN __SCHEMA__.platforms.platform_id IS 'Surrogate key, referenced by app_platforms.platform_id. Join on it; never hard-code ids.';
COMMENT ON COLUMN __SCHEMA__.platforms.name IS 'Platform name in lower case: ''windows'', ''mac'' or ''linux''.';

COMMENT ON TABLE __SCHEMA__.app_developers IS 'Link table, many-to-many between apps and developers: one row per (game, developer). Join: apps JOIN app_developers USING (app_id) JOIN developers USING (developer_id).';
COMMENT ON COLUMN __SCHEMA__.app_developers.app_id IS 'The game; references apps.app_id.';
COMMENT ON COLUMN __SCHEMA__.app_developers.developer_id IS 'A developer of the game; references developers.developer_id.';
COMMENT ON TABLE __SCHEMA__.app_publishers IS 'Link table, many-to-many between apps and publishers: one row per (game, publisher). Join: apps JOIN app_publishers USING (app_id) JOIN publishers USING (publisher_id).';
COMMENT ON COLUMN __SCHEMA__.app_publishers.app_id IS 'The game; references apps.app_id.';
COMMENT ON COLUMN __SCHEMA__.app_publishers.publisher_id IS 'A publisher of the game; references publishers.publisher_id.';
COMMENT ON TABLE __SCHEMA__.app_genres IS 'Link table, many-to-many between apps and genres: one row per (game, genre). Join: apps JOIN app_genres USING (app_id) JOIN genres USING (genre_id). Use COUNT(DISTINCT app_id) when counting games across several genres.';
COMMENT ON COLUMN __SCHEMA__.app_genres.app_id IS 'The game; references apps.app_id.';
COMMENT ON COLUMN __SCHEMA__.app_genres.genre_id IS 'A genre of the game; references genres.genre_id.';
COMMENT ON TABLE __SCHEMA__.app_tags IS 'Link table between apps and SteamSpy tags: up to 3 rows per game, ranked. Join: apps JOIN app_tags USING (app_id) JOIN tags USING (tag_id). Filter rank = 1 for each game''s main tag.';
COMMENT ON COLUMN __SCHEMA__.app_tags.app_id IS 'The game; references apps.app_id.';
COMMENT ON COLUMN __SCHEMA__.app_tags.tag_id IS 'A SteamSpy tag of the game; references tags.tag_id.';
COMMENT ON COLUMN __SCHEMA__.app_tags.rank IS 'Position of the tag in the SteamSpy list for this game: 1 = most voted tag, then 2, then 3.';
COMMENT ON TABLE __SCHEMA__.app_categories IS 'Link table, many-to-many between apps and store categories: one row per (game, category). Join: apps JOIN app_categories USING (app_id) JOIN categories USING (category_id).';
COMMENT ON COLUMN __SCHEMA__.app_categories.app_id IS 'The game; references apps.app_id.';
COMMENT ON COLUMN __SCHEMA__.app_categories.category_id IS 'A store category of the game; references categories.category_id.';
COMMENT ON TABLE __SCHEMA__.app_platforms IS 'Link table between apps and platforms: one row per operating system the game supports (1 to 3 rows per game). Join: apps JOIN app_platforms USING (app_id) JOIN platforms USING (platform_id). Games on all three: GROUP BY app_id HAVING count(*) = 3.';
COMMENT ON COLUMN __SCHEMA__.app_platforms.app_id IS 'The game; references apps.app_id.';
COMMENT ON COLUMN __SCHEMA__.app_platforms.platform_id IS 'A supported platform; references platforms.platform_id.';

-- demo:after-load

ALTER TABLE __SCHEMA__.app_developers
    ADD FOREIGN KEY (app_id) REFERENCES __SCHEMA__.apps (app_id),
    ADD FOREIGN KEY (developer_id) REFERENCES __SCHEMA__.developers (developer_id);
ALTER TABLE __SCHEMA__.app_publishers
    ADD FOREIGN KEY (app_id) REFERENCES __SCHEMA__.apps (app_id),
    ADD FOREIGN KEY (publisher_id) REFERENCES __SCHEMA__.publishers (publisher_id);
ALTER TABLE __SCHEMA__.app_genres
    ADD FOREIGN KEY (app_id) REFERENCES __SCHEMA__.apps (app_id),
    ADD FOREIGN KEY (genre_id) REFERENCES __SCHEMA__.genres (genre_id);
ALTER TABLE __SCHEMA__.app_tags
    ADD FOREIGN KEY (app_id) REFERENCES __SCHEMA__.apps (app_id),
    ADD FOREIGN KEY (tag_id) REFERENCES __SCHEMA__.tags (tag_id);
ALTER TABLE __SCHEMA__.app_categories
    ADD FOREIGN KEY (app_id) REFERENCES __SCHEMA__.apps (app_id),
    ADD FOREIGN KEY (category_id) REFERENCES __SCHEMA__.categories (category_id);
ALTER TABLE __SCHEMA__.app_platforms
    ADD FOREIGN KEY (app_id) REFERENCES __SCHEMA__.apps (app_id),
    ADD FOREIGN KEY (platform_id) REFERENCES __SCHEMA__.platforms (platform_id);

CREATE INDEX apps_name_trgm_idx       ON __SCHEMA__.apps       USING gin (name __TRGM__.gin_trgm_ops);
CREATE INDEX developers_name_trgm_idx ON __SCHEMA__.developers USING gin (name __TRGM__.gin_trgm_ops);
CREATE INDEX publishers_name_trgm_idx ON __SCHEMA__.publishers USING gin (name __TRGM__.gin_trgm_ops);
CREATE INDEX apps_release_year_idx    ON __SCHEMA__.apps (release_year);
CREATE INDEX apps_price_idx           ON __SCHEMA__.apps (price);

CREATE INDEX app_developers_developer_id_idx ON __SCHEMA__.app_developers (developer_id);
CREATE INDEX app_publishers_publisher_id_idx ON __SCHEMA__.app_publishers (publisher_id);
CREATE INDEX app_genres_genre_id_idx         ON __SCHEMA__.app_genres (genre_id);
CREATE INDEX app_tags_tag_id_idx             ON __SCHEMA__.app_tags (tag_id);
CREATE INDEX app_categories_category_id_idx  ON __SCHEMA__.app_categories (category_id);
CREATE INDEX app_platforms_platform_id_idx   ON __SCHEMA__.app_platforms (platform_id);

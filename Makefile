# analyticsbot: the two commands a newcomer needs are `make run` and `make test`.
GO      ?= go
BIN     := bin/analyticsbot
PKGS    := ./...
export DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/analyticsbot?sslmode=disable

# Optional local settings, one KEY=value per line without quotes: Slack
# tokens, model keys (see README). Git ignores the file.
-include .env
export

# The Defog benchmark's own database and settings (no examples: the demo's
# are about Steam). DEFOG_BUDGET is the schema budget its targets hold at.
DEFOG_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/analyticsbot_defog?sslmode=disable
DEFOG_BUDGET ?= 700
DEFOG_ENV = DATABASE_URL='$(DEFOG_DATABASE_URL)' \
  ANALYTICS_SCHEMA=academic,advising,atis,broker,car_dealership,derm_treatment,ewallet,geography,restaurants,scholar,yelp \
  DATA_DESCRIPTION='eleven public benchmark databases (Defog)' SQL_EXAMPLES=/dev/null

.PHONY: run test bench build db lint tidy clean cube chromium wordnet eval-retrieval eval-reworded eval-oracle screenshots

## run: set up the database, load the demo data, then serve the web chat at
## http://127.0.0.1:8080 (HTTP_ADDR), and Slack too when Slack tokens are set
## (BACKEND=cube also starts a local Cube server on the demo model)
run: build db
	$(BIN) migrate
	$(BIN) demo load
	@scripts/run.sh $(BIN)

## test: vet, format check and the whole test suite against the local Postgres
## (plus a local Cube server, installed once by `make cube`, and Debian's
## Chromium for the web chat's browser tests, `make chromium`). A package may
## take 30 minutes on a loaded machine (cmd/analyticsbot takes 4 on an idle
## two-core one), not Go's default 10.
test: db cube chromium wordnet lint
	$(GO) test -race -count=1 -timeout 30m $(PKGS)

## bench: benchmarks (results go in BENCHMARKS.md)
bench: db
	$(GO) test -run '^$$' -bench . -benchmem -count=1 $(PKGS)

## eval-retrieval: load Defog's benchmark (11 databases as 11 schemas, 110 tables) into a
## database of its own and score what the generator is shown, with no model call, against the
## targets in BENCHMARKS.md, and the same questions reworded (eval-reworded's runs); then the
## demo's own questions at the same small budget
eval-retrieval: build db
	$(DEFOG_ENV) $(BIN) migrate
	$(DEFOG_ENV) $(BIN) demo load defog
	$(DEFOG_ENV) SCHEMA_BUDGET_TOKENS=$(DEFOG_BUDGET) $(BIN) eval --retrieval-only \
	  --min-table-recall 0.98 --min-column-recall 0.97 --min-value-recall 0.90 --max-prompt-share 0.10 evals/defog.yaml
	$(REWORDED_RUNS)
	$(BIN) migrate
	$(BIN) demo load
	SCHEMA_BUDGET_TOKENS=$(DEFOG_BUDGET) $(BIN) eval --retrieval-only \
	  --min-table-recall 0.98 --min-column-recall 0.97 --min-value-recall 1 evals/steam.yaml

## eval-reworded: Defog questions reworded with synonyms and word forms (evals/defog-reworded.yaml)
## at the default budget: with the example glossary (with and without WordNet), with WordNet (the
## embedded copy, the default), and with neither (WORDNET_DIR=off) (BENCHMARKS.md)
eval-reworded: build db
	$(DEFOG_ENV) $(BIN) migrate
	$(DEFOG_ENV) $(BIN) demo load defog
	$(REWORDED_RUNS)

# REWORDED_RUNS score evals/defog-reworded.yaml against its floors on the loaded Defog database.
define REWORDED_RUNS
$(DEFOG_ENV) GLOSSARY_FILE=evals/defog-glossary.yaml WORDNET_DIR=off $(BIN) eval --retrieval-only \
	  --min-table-recall 0.97 --min-column-recall 0.97 --min-value-recall 0.93 evals/defog-reworded.yaml
	$(DEFOG_ENV) GLOSSARY_FILE=evals/defog-glossary.yaml $(BIN) eval --retrieval-only \
	  --min-table-recall 0.97 --min-column-recall 0.97 --min-value-recall 0.93 evals/defog-reworded.yaml
	$(DEFOG_ENV) $(BIN) eval --retrieval-only --min-table-recall 0.97 --min-value-recall 0.93 evals/defog-reworded.yaml
	$(DEFOG_ENV) WORDNET_DIR=off $(BIN) eval --retrieval-only --min-table-recall 0.95 --min-value-recall 0.93 evals/defog-reworded.yaml
endef

## eval-oracle: every Defog gold query through the whole workflow (guard, reader role, rows)
eval-oracle: build db
	$(DEFOG_ENV) $(BIN) migrate
	$(DEFOG_ENV) $(BIN) demo load defog
	$(DEFOG_ENV) $(BIN) eval --oracle --min-accuracy 1 evals/defog.yaml

build:
	$(GO) build -o $(BIN) ./cmd/analyticsbot

## db: make sure PostgreSQL runs at 127.0.0.1:5432
db:
	@scripts/ensure-postgres.sh

## cube: install the Cube server (0.33.65, from npm, once) that the Cube tests start
cube:
	@scripts/install-cube.sh

## screenshots: take the README's pictures of the web chat (docs/images) from the page, in
## headless Chromium at 1280×900 and 375×812, on an offline demo server of its own
screenshots: build db chromium
	@scripts/screenshots.sh $(BIN)

## chromium: install Debian's Chromium (once, needs root) that the web chat's
## browser test drives headless
chromium:
	@scripts/install-chromium.sh

## wordnet: install Debian's WordNet (once, needs root) in /usr/share/wordnet, which
## WORDNET_DIR may name, `go generate ./lexicon` makes the embedded copy from, and lexicon's
## tests compare that copy with (required when CI=true)
wordnet:
	@test -f /usr/share/wordnet/index.noun || { apt-get update -qq && apt-get install -y -qq --no-install-recommends wordnet-base >/dev/null; }

lint:
	$(GO) vet $(PKGS)
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

tidy:
	$(GO) mod tidy

clean:
	rm -rf bin

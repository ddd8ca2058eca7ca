-- +goose Up
-- An example's question is stored on one line (store.AddExample folds its
-- runs of white space into one space), so a question with line breaks
-- writes no lines of its own into other people's prompts. Questions
-- stored before are folded the same way here, so that the same question
-- and query, added again (a 👍, Verify, the examples file at start), find
-- their example instead of storing a second one. Of several examples of
-- one query whose questions fold to the same line, one is folded and the
-- others are left as they were (they were distinct before, and stay so);
-- one whose folded question another example of the query already has is
-- left as it was too.
WITH folded AS (
    SELECT id, backend, fingerprint, question,
           -- What Go's strings.Fields splits on (unicode.IsSpace): ASCII
           -- white space, NEL, the no-break spaces and the other Unicode
           -- spaces, whatever the database's locale.
           btrim(regexp_replace(question,
                 '[[:space:]\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+', ' ', 'g'), ' ') AS line
    FROM examples
), chosen AS (
    SELECT DISTINCT ON (backend, fingerprint, lower(line)) id, backend, fingerprint, line
    FROM folded
    WHERE question <> line
    ORDER BY backend, fingerprint, lower(line), id
)
UPDATE examples e SET question = c.line
FROM chosen c
WHERE e.id = c.id
  AND NOT EXISTS (SELECT 1 FROM examples o
                  WHERE o.backend = c.backend AND o.fingerprint = c.fingerprint AND o.id <> c.id
                    AND md5(lower(o.question)) = md5(lower(c.line)));

-- +goose Down
-- The questions' line breaks are not kept: folded, they stay folded.
SELECT 1;

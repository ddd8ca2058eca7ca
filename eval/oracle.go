package eval

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/analyticsbot/analyticsbot/llm"
)

// Oracle writes a scripted model (docs/scripted-model.md) that answers
// every question of f with its gold query, for the generator step step
// (the backend's Dialect().Step). Run through the whole workflow, it
// proves each gold query passes the guard, runs as the reader role and
// returns the expected rows; an accuracy below 1 is a bug in the eval
// file or in the pipeline, never the model's.
//
// Items are answered in file order, so the run must ask them one at a
// time: each rule answers once, keyed by the exact question line.
// Questions the item must decline are classified off topic; every other
// question is classified as a new question, taken as it is. A question
// the item expects to be asked back about is, with its options; the
// chosen option's question is answered with the gold query.
func Oracle(f *File, step string) ([]byte, error) {
	var rules []llm.Rule
	askBack := func(question string, a *AskBack) (string, error) {
		question = strings.TrimSpace(question)
		match := `(?:^|\n)Question: ` + regexp.QuoteMeta(question) + `(?:\n|$)`
		rules = append(rules, llm.Rule{Step: string(llm.StepClassify), Match: match, Times: 1,
			Reply: `{"intent": "analytics_query", "confidence": 0.99}`})
		reply, err := json.Marshal(map[string]any{"clarification": map[string]any{"question": "Which do you mean?", "options": a.Options}})
		if err != nil {
			return "", err
		}
		rules = append(rules, llm.Rule{Step: step, Match: match, Times: 1, Reply: string(reply)})
		i, _ := offered(a.Options, a.Choose)
		return question + " (" + strings.Join(strings.Fields(a.Options[i]), " ") + ")", nil
	}
	add := func(question, sql string, decline bool) error {
		question = strings.TrimSpace(question)
		match := `(?:^|\n)Question: ` + regexp.QuoteMeta(question) + `(?:\n|$)`
		intent := "analytics_query"
		if decline {
			intent = "off_topic"
		}
		rules = append(rules, llm.Rule{Step: string(llm.StepClassify), Match: match, Times: 1,
			Reply: fmt.Sprintf(`{"intent": %q, "confidence": 0.99}`, intent)})
		if decline {
			return nil
		}
		q, err := json.Marshal(question)
		if err != nil {
			return err
		}
		rules = append(rules, llm.Rule{Step: string(llm.StepResolve), Match: match, Times: 1,
			Reply: fmt.Sprintf(`{"question": %s, "referenced_query_id": null}`, q)})
		if strings.TrimSpace(sql) == "" {
			return nil // no gold query: the generator has nothing to say
		}
		answer := map[string]any{"assumptions": []string{}, "explanation": "The eval's gold query."}
		if step == string(llm.StepGenerateSQL) {
			answer["sql"] = sql
		} else if json.Valid([]byte(sql)) {
			answer["query"] = json.RawMessage(sql) // a query object, as Cube's generator answers
		} else {
			return fmt.Errorf("the gold query of step %s is not a JSON object", step)
		}
		reply, err := json.Marshal(answer)
		if err != nil {
			return err
		}
		rules = append(rules, llm.Rule{Step: step, Match: match, Times: 1, Reply: string(reply)})
		return nil
	}
	for _, it := range f.Items {
		for _, t := range it.Turns {
			if err := add(t.Question, t.SQL, false); err != nil {
				return nil, fmt.Errorf("oracle: item %s: %w", it.ID, err)
			}
		}
		question := it.Question
		if it.AskBack != nil {
			chosen, err := askBack(it.Question, it.AskBack)
			if err != nil {
				return nil, fmt.Errorf("oracle: item %s: %w", it.ID, err)
			}
			if it.AskBack.Choose == "" {
				continue
			}
			question = chosen
		}
		if err := add(question, it.SQL, it.Decline); err != nil {
			return nil, fmt.Errorf("oracle: item %s: %w", it.ID, err)
		}
	}
	rules = append(rules, llm.Rule{Step: string(llm.StepInterpret), Reply: `{"answer": "The rows are below."}`})
	out, err := yaml.Marshal(map[string]any{"rules": rules})
	if err != nil {
		return nil, fmt.Errorf("oracle: %w", err)
	}
	return out, nil
}

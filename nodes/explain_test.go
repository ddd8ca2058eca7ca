package nodes

import "testing"

// TestExplainWords: the words that ask for an explanation and nothing else
// take Explain without the model; a question that says "explain" is the
// classifier's.
func TestExplainWords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		msg  string
		want Intent // empty: the classifier decides
	}{
		{"explain", IntentExplain},
		{"Explain this answer, please", IntentExplain},
		{"can you explain that to me?", IntentExplain},
		{"How did you get that?", IntentExplain},
		{"how was this calculated", IntentExplain},
		{"explain the last answer", IntentExplain},
		{"Explain the drop in sales in 2018", ""},
		{"How did you get the revenue per region?", ""},
		{"What explains the rise in prices?", ""},
	}
	for _, tt := range tests {
		t.Run(tt.msg, func(t *testing.T) {
			t.Parallel()
			got, _ := keywordIntent(tt.msg)
			if got != tt.want {
				t.Errorf("keywordIntent(%q) = %q, want %q", tt.msg, got, tt.want)
			}
		})
	}
}

package sqlguard

import (
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// adversarialCase is one entry of testdata/adversarial.yaml; its header
// documents the format.
type adversarialCase struct {
	Name   string `yaml:"name"`
	Class  Class  `yaml:"class"`
	SQL    string `yaml:"sql"`
	Repeat int    `yaml:"repeat"`
	Policy struct {
		MaxLength    int      `yaml:"max_length"`
		MaxDepth     int      `yaml:"max_depth"`
		AllowCatalog bool     `yaml:"allow_catalog"`
		Functions    []string `yaml:"functions"`
		Masked       []string `yaml:"masked_columns"`
	} `yaml:"policy"`
}

var repeatMarker = regexp.MustCompile(`\{\{(.*?)\}\}`)

func (c adversarialCase) sql() string {
	if c.Repeat <= 0 {
		return c.SQL
	}
	return repeatMarker.ReplaceAllStringFunc(c.SQL, func(m string) string {
		return strings.Repeat(repeatMarker.FindStringSubmatch(m)[1], c.Repeat)
	})
}

func (c adversarialCase) policy() Policy {
	return Policy{
		Schemas:      []string{"analytics"},
		Tables:       []string{"apps", "genres", "app_genres", "reviews"},
		MaxLength:    c.Policy.MaxLength,
		MaxDepth:     c.Policy.MaxDepth,
		AllowCatalog: c.Policy.AllowCatalog,
		Functions:    c.Policy.Functions,
		RowLimit:     100,
		// Masked columns are only matched in the tables read by qualified
		// name (Policy.Tables' bare names resolve in any schema).
		MaskedColumns: c.Policy.Masked,
	}
}

func loadAdversarial(t *testing.T) []adversarialCase {
	t.Helper()
	data, err := os.ReadFile("testdata/adversarial.yaml")
	require.NoError(t, err)
	var cases []adversarialCase
	require.NoError(t, yaml.Unmarshal(data, &cases))
	return cases
}

// allClasses lists every rejection class, so the corpus can be held to at
// least three cases each.
var allClasses = []Class{
	ClassEmpty, ClassTooLong, ClassTooDeep, ClassSyntax, ClassStacked, ClassWrite, ClassDDL,
	ClassMaintenance, ClassWritingCTE, ClassSelectInto, ClassExplain, ClassSession, ClassSettings,
	ClassPrivilege, ClassSleep, ClassUnbounded, ClassFileAccess, ClassCopy, ClassLargeObject,
	ClassCodeExecution, ClassDynamicSQL, ClassForeignData, ClassSideEffect, ClassLocking,
	ClassCatalog, ClassRelation, ClassFunction, ClassNameResolution, ClassColumns,
}

func TestAdversarialCorpusCoversEveryClass(t *testing.T) {
	t.Parallel()
	cases := loadAdversarial(t)
	perClass := map[Class]int{}
	names := map[string]bool{}
	for _, c := range cases {
		require.NotEmpty(t, c.Name, "a case without a name: %q", c.SQL)
		key := string(c.Class) + "/" + c.Name
		assert.False(t, names[key], "duplicate case %q", key)
		names[key] = true
		assert.Contains(t, allClasses, c.Class, "case %q: unknown class", c.Name)
		perClass[c.Class]++
	}
	for _, class := range allClasses {
		assert.GreaterOrEqual(t, perClass[class], 3, "class %s: got %d cases, want at least 3", class, perClass[class])
	}
}

func TestAdversarialCorpus(t *testing.T) {
	t.Parallel()
	for _, c := range loadAdversarial(t) {
		t.Run(string(c.Class)+"/"+c.Name, func(t *testing.T) {
			t.Parallel()
			sql, p := c.sql(), c.policy()
			err := Check(sql, p)
			var rej *Rejection
			require.True(t, errors.As(err, &rej), "Check(%.200q) = %v, want a rejection of class %s", sql, err, c.Class)
			assert.Equal(t, c.Class, rej.Class, "Check(%.200q) class: got %s (%s), want %s", sql, rej.Class, rej.Reason, c.Class)
			assert.NotEmpty(t, rej.Reason)

			// Guard must reject it the same way and never hand back text.
			out, gerr := Guard(sql, p)
			assert.Empty(t, out, "Guard returned text for a rejected statement")
			assert.Equal(t, err, gerr, "Guard and Check disagree")
		})
	}
}

package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Duration is a time.Duration written as "500ms" or "2s" in script files.
type Duration time.Duration

// String formats d like time.Duration does.
func (d Duration) String() string { return time.Duration(d).String() }

// UnmarshalYAML reads a duration string such as "500ms".
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a duration like \"500ms\" or \"2s\"", n.Line)
	}
	v, err := parseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*d = v
	return nil
}

// MarshalYAML writes d as a duration string.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// UnmarshalJSON reads a duration string such as "500ms".
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("want a duration string like \"500ms\" or \"2s\", got %s", b)
	}
	v, err := parseDuration(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// MarshalJSON writes d as a duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

func parseDuration(s string) (Duration, error) {
	v, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("want a duration like \"500ms\" or \"2s\": %w", err)
	}
	if v < 0 {
		return 0, fmt.Errorf("duration %q is negative", s)
	}
	return Duration(v), nil
}

// scriptFile is the top level of a script file.
type scriptFile struct {
	Rules []Rule `yaml:"rules" json:"rules"`
}

// LoadScript reads a script file: YAML for .yaml and .yml, JSON for .json.
// Errors name the file.
func LoadScript(path string) (*Scripted, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load script: %w", err)
	}
	var f scriptFile
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".yaml", ".yml":
		err = decodeYAML(data, &f)
	case ".json":
		err = decodeJSON(data, &f)
	default:
		err = fmt.Errorf("unknown extension %q (want .yaml, .yml or .json)", ext)
	}
	if err != nil {
		return nil, fmt.Errorf("load script %s: %w", path, err)
	}
	s, err := newFromFile(f)
	if err != nil {
		return nil, fmt.Errorf("load script %s: %w", path, err)
	}
	return s, nil
}

// ParseScript reads a script from YAML, or JSON, which YAML accepts too.
func ParseScript(data []byte) (*Scripted, error) {
	var f scriptFile
	if err := decodeYAML(data, &f); err != nil {
		return nil, fmt.Errorf("parse script: %w", err)
	}
	s, err := newFromFile(f)
	if err != nil {
		return nil, fmt.Errorf("parse script: %w", err)
	}
	return s, nil
}

func newFromFile(f scriptFile) (*Scripted, error) {
	if len(f.Rules) == 0 {
		return nil, errors.New("no rules (want a top-level \"rules:\" list)")
	}
	return NewScripted(f.Rules)
}

// decodeYAML rejects unknown fields so a misspelt "mach:" does not silently
// turn into a rule that matches everything.
func decodeYAML(data []byte, f *scriptFile) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(f); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

func decodeJSON(data []byte, f *scriptFile) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(f)
}

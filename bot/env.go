package bot

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/caarlos0/env/v11"
)

// ParseEnv reads cfg, a pointer to a struct of env tags, from the
// environment. A value that does not parse is reported by its variable, the
// name the operator set, where the env package names the Go field:
// `MAX_ROWS: strconv.ParseInt: parsing "abc": invalid syntax`, not
// `parse error on field "MaxRows"`.
func ParseEnv(cfg any) error {
	err := env.Parse(cfg)
	var agg env.AggregateError
	if !errors.As(err, &agg) {
		return err
	}
	keys := envKeys(reflect.TypeOf(cfg).Elem())
	errs := make([]error, 0, len(agg.Errors))
	for _, e := range agg.Errors {
		var pe env.ParseError
		if errors.As(e, &pe) && keys[pe.Name] != "" {
			e = fmt.Errorf("%s: %w", keys[pe.Name], pe.Err)
		}
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}

// envKeys maps the fields of the struct t, and of the structs it holds
// without an env tag of their own (the backends' settings), to the
// variables they are read from. Two fields of one name read from different
// variables are named by both.
func envKeys(t reflect.Type) map[string]string {
	keys := map[string]string{}
	for i := range t.NumField() {
		f := t.Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("env"), ",")
		switch {
		case key == "" && f.Type.Kind() == reflect.Struct:
			for name, k := range envKeys(f.Type) {
				addKey(keys, name, k)
			}
		case key != "":
			addKey(keys, f.Name, key)
		}
	}
	return keys
}

func addKey(keys map[string]string, name, key string) {
	if old := keys[name]; old != "" && old != key {
		key = old + " or " + key
	}
	keys[name] = key
}

package bot

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"
)

// ParseEnv reads cfg, a pointer to a struct of env tags, from the
// environment. A value that does not parse is reported by its variable, the
// name the operator set, with what it takes: `MAX_ROWS must be a whole
// number (its default is 1000); got "abc"`, not the env package's `parse
// error on field "MaxRows"` or strconv's `parsing "abc": invalid syntax`.
func ParseEnv(cfg any) error {
	err := env.Parse(cfg)
	var agg env.AggregateError
	if !errors.As(err, &agg) {
		return err
	}
	fields := envFields(reflect.TypeOf(cfg).Elem())
	errs := make([]error, 0, len(agg.Errors))
	for _, e := range agg.Errors {
		var pe env.ParseError
		if errors.As(e, &pe) {
			if f, ok := fields[pe.Name]; ok {
				e = f.parseError(pe)
			}
		}
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}

// envField is where a field of a configuration struct is read from.
type envField struct {
	keys []string // its variables (two fields of one name may read two)
	def  string   // its default, when one variable reads it
}

// parseError says which variable did not parse, what it takes, and the
// value it has (settings that take numbers, durations or flags hold no
// secret; a long value is cut).
func (f envField) parseError(pe env.ParseError) error {
	key := strings.Join(f.keys, " or ")
	want := ""
	switch t := pe.Type; {
	case t == reflect.TypeFor[time.Duration]():
		want = "a duration such as 30s, 10m or 24h"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64 && errors.Is(pe.Err, strconv.ErrRange):
		// Go's bounds of the field's type say nothing the operator needs.
		want = "a smaller whole number"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		want = "a whole number"
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		want = "a number"
	case t.Kind() == reflect.Bool:
		want = "true or false"
	default:
		return fmt.Errorf("%s: %w", key, pe.Err)
	}
	if f.def != "" && len(f.keys) == 1 {
		want += " (its default is " + f.def + ")"
	}
	value := ""
	if len(f.keys) == 1 {
		value = os.Getenv(f.keys[0])
	}
	if r := []rune(value); len(r) > 40 {
		value = string(r[:40]) + "…"
	}
	return fmt.Errorf("%s must be %s; got %q", key, want, value)
}

// envFields maps the fields of the struct t, and of the structs it holds
// without an env tag of their own (the backends' settings), to the
// variables they are read from.
func envFields(t reflect.Type) map[string]envField {
	fields := map[string]envField{}
	add := func(name string, f envField) {
		old, seen := fields[name]
		if !seen {
			fields[name] = f
			return
		}
		for _, k := range f.keys {
			if !slices.Contains(old.keys, k) {
				old.keys = append(old.keys, k)
			}
		}
		fields[name] = old
	}
	for i := range t.NumField() {
		f := t.Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("env"), ",")
		switch {
		case key == "" && f.Type.Kind() == reflect.Struct:
			for name, inner := range envFields(f.Type) {
				add(name, inner)
			}
		case key != "":
			add(f.Name, envField{keys: []string{key}, def: f.Tag.Get("envDefault")})
		}
	}
	return fields
}

package litellm

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// This file reads the loosely typed mappings of a LiteLLM config.yaml: each
// value is taken by name, os.environ/VAR references are resolved, and what
// was never taken is what the report lists as not mapped.

// envPrefix marks a LiteLLM value read from the environment.
const envPrefix = "os.environ/"

// yamlFields is one YAML mapping whose keys the importer takes one at a time.
type yamlFields struct {
	where string // "model_list[2] (gpt-4o): litellm_params", for messages
	m     map[string]any
	taken map[string]bool
	env   func(string) string
	errs  *[]error
}

func newYAMLFields(where string, v any, env func(string) string, errs *[]error) *yamlFields {
	m, ok := v.(map[string]any)
	if v != nil && !ok {
		*errs = append(*errs, fmt.Errorf("%s: want a mapping, got %T", where, v))
	}
	return &yamlFields{where: where, m: m, taken: map[string]bool{}, env: env, errs: errs}
}

func (f *yamlFields) fail(key, format string, args ...any) {
	*f.errs = append(*f.errs, fmt.Errorf("%s.%s: %s", f.where, key, fmt.Sprintf(format, args...)))
}

// has says whether key is present, without taking it.
func (f *yamlFields) has(key string) bool {
	_, ok := f.m[key]
	return ok
}

// raw takes key's value as the YAML has it.
func (f *yamlFields) raw(key string) (any, bool) {
	v, ok := f.m[key]
	if ok {
		f.taken[key] = true
	}
	return v, ok && v != nil
}

// str takes key as a string, resolving os.environ/VAR ("" when absent).
func (f *yamlFields) str(key string) string {
	v, ok := f.raw(key)
	if !ok {
		return ""
	}
	var s string
	switch v := v.(type) {
	case string:
		s = v
	case int, float64, bool:
		s = fmt.Sprint(v)
	default:
		f.fail(key, "want a string, got %T", v)
		return ""
	}
	return f.resolve(key, s)
}

// resolve reads an os.environ/VAR value; a variable that is not set is an error.
func (f *yamlFields) resolve(key, s string) string {
	name, ok := strings.CutPrefix(strings.TrimSpace(s), envPrefix)
	if !ok {
		return s
	}
	v := f.env(name)
	if v == "" {
		f.fail(key, "environment variable %s is not set", name)
	}
	return v
}

// number takes key as a number (a string holding one is accepted, as
// os.environ/ gives strings).
func (f *yamlFields) number(key string) (float64, bool) {
	v, ok := f.raw(key)
	if !ok {
		return 0, false
	}
	switch v := v.(type) {
	case int:
		return float64(v), true
	case float64:
		return v, true
	case string:
		s := f.resolve(key, v)
		if s == "" {
			return 0, false
		}
		n, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			f.fail(key, "want a number, got %q", s)
			return 0, false
		}
		return n, true
	}
	f.fail(key, "want a number, got %T", v)
	return 0, false
}

// whole takes key as a whole number of at least min.
func (f *yamlFields) whole(key string, min int) (*int, bool) {
	n, ok := f.number(key)
	if !ok {
		return nil, false
	}
	if n != math.Trunc(n) || n < float64(min) || n > math.MaxInt32 {
		f.fail(key, "want a whole number of at least %d, got %v", min, n)
		return nil, false
	}
	i := int(n)
	return &i, true
}

// perMillion takes a LiteLLM price per token as USD per million tokens.
func (f *yamlFields) perMillion(key string) (*float64, bool) {
	n, ok := f.number(key)
	if !ok {
		return nil, false
	}
	if n < 0 {
		f.fail(key, "want a price of at least 0, got %v", n)
		return nil, false
	}
	// Rounded to 1e-9 USD: 2.5e-06 × 1e6 is 2.4999999999999996 in floats.
	p := math.Round(n*1e6*1e9) / 1e9
	return &p, true
}

// rest are the keys nobody took, sorted, each with where it was.
func (f *yamlFields) rest(prefix string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(f.m)) {
		if !f.taken[k] {
			out = append(out, prefix+k)
		}
	}
	return out
}

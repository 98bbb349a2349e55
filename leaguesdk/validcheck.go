package leaguesdk

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/go-playground/validator/v10"
)

// The checks below decide, for the validate tags this package uses, what
// validator decides of a value that passes them, without validator's
// per-call cost: it walks every field through reflection, builds names as
// it goes and recurses deeply enough to grow goroutine stacks. A check only
// ever says "valid"; a value it does not pass goes to validator, which
// decides and builds the error, so a check that is too strict costs time
// and never changes an answer. A type with a tag, option or kind the checks
// do not know has no check and always goes to validator.

// valueCheck reports whether a value passes the rules of one field, or of
// one element of a slice; a nil valueCheck passes everything.
type valueCheck func(reflect.Value) bool

// structCheck is the check of a struct type: nil valid means that no field
// of it has a rule.
type structCheck struct {
	valid valueCheck
}

// checks holds the check of every type checkFor was asked about (a nil
// *structCheck for a type validator must decide). It holds a pure function
// of a type: an entry, once stored, never changes; two goroutines that
// build one at the same time build equal ones; and Validate answers the
// same whether an entry is there or not, only sooner.
var checks sync.Map // reflect.Type → *structCheck

// checkFor returns the check of the struct type t, or nil when validator
// must decide every value of t.
func checkFor(t reflect.Type) *structCheck {
	if c, ok := checks.Load(t); ok {
		return c.(*structCheck)
	}
	var c *structCheck
	if valid, ok := buildStructCheck(t, map[reflect.Type]bool{}); ok {
		c = &structCheck{valid: valid}
	}
	actual, _ := checks.LoadOrStore(t, c)
	return actual.(*structCheck)
}

// passes reports whether msg has a check and passes it: then validator
// would find nothing wrong with it. msg is what validator's Struct takes, a
// struct or a non-nil pointer to one.
func passes(msg any) bool {
	v := reflect.ValueOf(msg)
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return false
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return false
	}
	c := checkFor(v.Type())
	return c != nil && (c.valid == nil || c.valid(v))
}

var (
	timeType   = reflect.TypeFor[time.Time]()
	valuerType = reflect.TypeFor[validator.Valuer]()
)

// buildStructCheck builds the check of the struct type t as validator
// validates it: every exported or embedded field that is not tagged "-".
// seen holds the struct types being built, to leave recursive types to
// validator.
func buildStructCheck(t reflect.Type, seen map[reflect.Type]bool) (valueCheck, bool) {
	if seen[t] || t.ConvertibleTo(timeType) || hasValuer(t) {
		return nil, false
	}
	seen[t] = true
	defer delete(seen, t)
	type field struct {
		index int
		valid valueCheck
	}
	var fields []field
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() && !f.Anonymous {
			continue
		}
		tag := f.Tag.Get("validate")
		if tag == "-" {
			continue
		}
		var tags []string
		if tag != "" {
			tags = strings.Split(tag, ",")
		}
		valid, ok := buildValueCheck(f.Type, tags, seen)
		if !ok {
			return nil, false
		}
		if valid != nil {
			fields = append(fields, field{i, valid})
		}
	}
	if len(fields) == 0 {
		return nil, true
	}
	return func(v reflect.Value) bool {
		for _, f := range fields {
			if !f.valid(v.Field(f.index)) {
				return false
			}
		}
		return true
	}, true
}

// hasValuer reports whether validator would validate what a value of t
// returns from ValidatorValue instead of the value itself.
func hasValuer(t reflect.Type) bool {
	return t.Implements(valuerType) || t.Kind() != reflect.Interface && reflect.PointerTo(t).Implements(valuerType)
}

// buildValueCheck builds the check of a value of type t under the tags
// that apply to it. Validator descends into a struct without tags and into
// the struct a non-nil pointer without tags points to; it applies the tags
// to any other kind.
func buildValueCheck(t reflect.Type, tags []string, seen map[reflect.Type]bool) (valueCheck, bool) {
	if hasValuer(t) {
		return nil, false
	}
	switch t.Kind() {
	case reflect.Pointer:
		elem := t.Elem()
		if len(tags) > 0 || elem.Kind() == reflect.Pointer || elem.Kind() == reflect.Interface {
			return nil, false
		}
		valid, ok := buildValueCheck(elem, nil, seen)
		if !ok || valid == nil {
			return nil, ok
		}
		return func(v reflect.Value) bool { return v.IsNil() || valid(v.Elem()) }, true
	case reflect.Interface:
		return nil, false
	case reflect.Struct:
		if len(tags) > 0 {
			return nil, false
		}
		return buildStructCheck(t, seen)
	}
	return buildRules(t, tags, seen)
}

// buildRules builds the check of the tags, in order, on a value of type t,
// which is not a pointer, an interface or a struct.
func buildRules(t reflect.Type, tags []string, seen map[reflect.Type]bool) (valueCheck, bool) {
	if len(tags) == 0 {
		return nil, true
	}
	tag, rest := tags[0], tags[1:]
	if tag == "dive" {
		// The rest of the tags apply to each element.
		if t.Kind() != reflect.Slice {
			return nil, false
		}
		elem, ok := buildValueCheck(t.Elem(), rest, seen)
		if !ok || elem == nil {
			return nil, ok
		}
		return func(v reflect.Value) bool {
			for i := range v.Len() {
				if !elem(v.Index(i)) {
					return false
				}
			}
			return true
		}, true
	}
	next, ok := buildRules(t, rest, seen)
	if !ok {
		return nil, false
	}
	if tag == "omitempty" {
		// An empty value skips the rest of the tags.
		present := presence(t)
		if present == nil {
			return nil, false
		}
		if next == nil {
			return nil, true
		}
		return func(v reflect.Value) bool { return !present(v) || next(v) }, true
	}
	test := rule(t, tag)
	if test == nil {
		return nil, false
	}
	if next == nil {
		return test, true
	}
	return func(v reflect.Value) bool { return test(v) && next(v) }, true
}

// presence returns validator's test of whether a value of type t is there
// (its "required", and what "omitempty" looks at), or nil for a kind it is
// not built for.
func presence(t reflect.Type) valueCheck {
	switch t.Kind() {
	case reflect.String:
		return func(v reflect.Value) bool { return v.Len() != 0 }
	case reflect.Bool:
		return reflect.Value.Bool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(v reflect.Value) bool { return v.Int() != 0 }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return func(v reflect.Value) bool { return v.Uint() != 0 }
	case reflect.Slice, reflect.Map:
		return func(v reflect.Value) bool { return !v.IsNil() }
	}
	return nil
}

// rule returns the test of one tag on a value of type t, as validator's
// function for the tag decides it, or nil for a tag, parameter or kind it
// is not built for.
func rule(t reflect.Type, tag string) valueCheck {
	if strings.Contains(tag, "|") {
		return nil // alternatives
	}
	name, param, hasParam := strings.Cut(tag, "=")
	if strings.Contains(param, "0x2C") || strings.Contains(param, "0x7C") {
		return nil // validator reads these as "," and "|"
	}
	switch name {
	case "required":
		if hasParam {
			return nil
		}
		return presence(t)
	case "min":
		n, err := strconv.ParseInt(param, 0, 64)
		if !hasParam || err != nil {
			return nil
		}
		switch t.Kind() {
		case reflect.String:
			return func(v reflect.Value) bool { return int64(utf8.RuneCountInString(v.String())) >= n }
		case reflect.Slice, reflect.Map:
			return func(v reflect.Value) bool { return int64(v.Len()) >= n }
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			if t == reflect.TypeFor[time.Duration]() {
				return nil // validator reads the parameter as a duration
			}
			return func(v reflect.Value) bool { return v.Int() >= n }
		}
		return nil
	case "oneof":
		if t.Kind() != reflect.String || !hasParam {
			return nil
		}
		// Validator splits the values at white space, keeping 'quoted'
		// ones whole: a list of plain printable ASCII words splits at
		// spaces alone.
		for i := 0; i < len(param); i++ {
			if c := param[i]; c < ' ' || c > '~' || c == '\'' {
				return nil
			}
		}
		values := strings.Fields(param)
		return func(v reflect.Value) bool { return slices.Contains(values, v.String()) }
	}
	if test := stringRule(name); test != nil && !hasParam && t.Kind() == reflect.String {
		return func(v reflect.Value) bool { return test(v.String()) }
	}
	return nil
}

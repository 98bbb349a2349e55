package leaguesdk

import (
	"errors"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"unicode"

	"github.com/go-playground/validator/v10"
	"golang.org/x/mod/semver"
)

// validate is the one validator instance of the package. A validator caches
// what it learns of each struct type and is safe for concurrent use; it is
// configured once here and never changed afterwards.
var validate = newValidator()

func newValidator() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			return ""
		}
		if name == "" {
			return f.Name
		}
		return name
	})
	for _, tag := range []string{"protocol", "sender", "utc", "parity", "protover", "endpoint"} {
		rule := stringRule(tag)
		if err := v.RegisterValidation(tag, func(fl validator.FieldLevel) bool {
			return rule(fl.Field().String())
		}); err != nil {
			panic(err)
		}
	}
	return v
}

// stringRule returns the test of a string field that the tag added by this
// package stands for, or nil for any other tag.
func stringRule(tag string) func(string) bool {
	switch tag {
	case "protocol":
		return func(s string) bool { return s == Protocol }
	case "sender":
		return validSender
	case "utc":
		return func(s string) bool {
			_, err := ParseTime(s)
			return err == nil
		}
	case "parity":
		return func(s string) bool { return Parity(s).Valid() }
	case "protover":
		return func(s string) bool { return compareVersions(s, MinProtocolVersion) >= 0 }
	case "endpoint":
		return ValidEndpoint
	}
	return nil
}

// validSender accepts any non-empty sender of printable characters without
// spaces, at most 128 bytes long: "player:P01", "referee:alpha",
// "league_manager", and the forms without ":" that other implementations use.
func validSender(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for _, r := range s {
		if unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// ValidEndpoint reports whether s is an absolute http or https URL with a host.
func ValidEndpoint(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// compareVersions compares two protocol versions ("2.1.0") as semantic
// versions and returns -1, 0 or +1. They are received tolerantly: a "v"
// prefix and surrounding spaces are allowed, a missing minor or patch
// counts as 0 ("2" is "2.0.0"), and a pre-release or build suffix is
// ignored ("2.0.0-beta" is "2.0.0"); a version that does not parse is
// older than any that does.
func compareVersions(a, b string) int {
	return semver.Compare(releaseOf(a), releaseOf(b))
}

// releaseOf returns the canonical semantic version ("v2.0.0") of the
// protocol version s without its pre-release, or "" if s is none.
func releaseOf(s string) string {
	v := semver.Canonical("v" + strings.TrimPrefix(strings.TrimSpace(s), "v"))
	return strings.TrimSuffix(v, semver.Prerelease(v))
}

// Validate checks a message against the protocol: required fields (E003),
// the protocol value and declared protocol versions (E018), UTC timestamps
// (E021) and parity choices (E004). It returns nil or an [*Error] whose Field
// is the JSON path of the first field at fault.
func Validate(msg any) error {
	err := validate.Struct(msg)
	if err == nil {
		return nil
	}
	var verrs validator.ValidationErrors
	if !errors.As(err, &verrs) || len(verrs) == 0 {
		return &Error{Code: CodeMissingRequiredField, Message: err.Error(), Err: err}
	}
	fe := verrs[0]
	field := jsonPath(fe.Namespace())
	e := &Error{Field: field, Err: err}
	val := fieldString(fe.Value())
	switch fe.Tag() {
	case "required", "min", "dive":
		e.Code = CodeMissingRequiredField
		e.Message = "missing required field " + field
	case "protocol":
		e.Code = CodeProtocolVersionMismatch
		e.Message = "protocol must be " + strconv.Quote(Protocol) + ", got " + quote(val)
	case "protover":
		e.Code = CodeProtocolVersionMismatch
		e.Message = field + " " + quote(val) + " is older than the minimum supported " + MinProtocolVersion
	case "utc":
		e.Code = CodeInvalidTimestamp
		e.Message = field + " " + quote(val) + " is not an RFC 3339 time in UTC (Z or +00:00)"
	case "parity":
		e.Code = CodeInvalidParityChoice
		e.Message = field + ` must be exactly "even" or "odd", got ` + quote(val)
	default:
		e.Code = CodeMissingRequiredField
		e.Message = "field " + field + " has an invalid value " + quote(val) + " (rule " + fe.Tag() + ")"
	}
	if len(verrs) > 1 {
		e.Message += " (and " + strconv.Itoa(len(verrs)-1) + " more)"
	}
	return e
}

// jsonPath turns a validator namespace ("ChooseParityResponse.Envelope.timestamp")
// into a JSON path ("timestamp").
func jsonPath(ns string) string {
	parts := strings.Split(ns, ".")
	out := parts[:0]
	for i, p := range parts {
		if i == 0 || p == "Envelope" {
			continue
		}
		out = append(out, p)
	}
	return strings.Join(out, ".")
}

func fieldString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case interface{ String() string }:
		return x.String()
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.String {
		return rv.String()
	}
	return ""
}

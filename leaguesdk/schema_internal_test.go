package leaguesdk

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// resolvedSchema is the schema tools/list shows for messages of type mt,
// ready to validate instances.
func resolvedSchema(t *testing.T, mt MessageType) *jsonschema.Resolved {
	t.Helper()
	raw := json.RawMessage(messageSchema(mt))
	if strings.Contains(string(raw), "true") || strings.Contains(string(raw), "false") {
		t.Fatalf("%s: schema has a boolean subschema: %s", mt, raw)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("%s: %v", mt, err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("%s: %v\n%s", mt, err, raw)
	}
	return r
}

// TestToolSchemasAcceptTheExamplesAndRequireWhatValidateRequires: every
// complete example of docs/message-examples is valid against the schema of
// its type, also with a property the schema does not name (messages are
// received tolerantly), and is invalid without any one of the properties
// the schema requires, at the top and one level down.
func TestToolSchemasAcceptTheExamplesAndRequireWhatValidateRequires(t *testing.T) {
	files, err := filepath.Glob("../docs/message-examples/*.json")
	if err != nil || len(files) < len(MessageTypes()) {
		t.Fatalf("examples: %v %v", files, err)
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var msg map[string]any
		if err := json.Unmarshal(b, &msg); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		mt := MessageType(msg["message_type"].(string))
		r := resolvedSchema(t, mt)
		if err := r.Validate(msg); err != nil {
			t.Errorf("%s: example invalid: %v", mt, err)
		}
		msg["x_extension"] = map[string]any{"anything": 1}
		if err := r.Validate(msg); err != nil {
			t.Errorf("%s: unknown property refused: %v", mt, err)
		}
		delete(msg, "x_extension")
		checkRequired(t, r, string(mt), msg, msg, r.Schema())
	}
}

// checkRequired removes each property s requires from obj in turn and
// expects the whole message to be refused, then does the same in the nested
// objects of obj.
func checkRequired(t *testing.T, r *jsonschema.Resolved, path string, msg, obj map[string]any, s *jsonschema.Schema) {
	t.Helper()
	for _, name := range s.Required {
		v, ok := obj[name]
		if !ok {
			t.Errorf("%s: example lacks required %q", path, name)
			continue
		}
		delete(obj, name)
		if r.Validate(msg) == nil {
			t.Errorf("%s: accepted without %q", path, name)
		}
		obj[name] = v
	}
	for name, prop := range s.Properties {
		if nested, ok := obj[name].(map[string]any); ok && len(prop.Properties) > 0 {
			checkRequired(t, r, path+"."+name, msg, nested, prop)
		}
	}
}

// TestToolSchemasRequireTheEnvelope: the envelope's fields are required in
// every message's schema and the token is not (an unauthenticated call
// such as a registration goes without one).
func TestToolSchemasRequireTheEnvelope(t *testing.T) {
	for _, mt := range MessageTypes() {
		s := resolvedSchema(t, mt).Schema()
		for _, name := range []string{"protocol", "message_type", "sender", "timestamp", "conversation_id"} {
			if !slices.Contains(s.Required, name) {
				t.Errorf("%s: %q not required: %v", mt, name, s.Required)
			}
		}
		if slices.Contains(s.Required, "auth_token") {
			t.Errorf("%s: auth_token required", mt)
		}
	}
}

// TestInputSchemaOfOtherTypesIsAnObject: a tool whose input is one of the
// package's messages gets its generated schema, by value or pointer; a
// type of the user's own, even one that embeds the envelope, gets any
// JSON object.
func TestInputSchemaOfOtherTypesIsAnObject(t *testing.T) {
	type own struct {
		Envelope
		Note string `json:"note" validate:"required"`
	}
	for _, in := range []any{new(own), new(struct{ N int }), new(int), nil} {
		if got := string(inputSchema(in)); got != objectSchema {
			t.Errorf("%T: schema %s", in, got)
		}
	}
	for _, mt := range MessageTypes() {
		want := messageSchema(mt)
		if want == "" || !strings.HasPrefix(want, `{"type":"object"`) {
			t.Fatalf("%s: no generated schema: %q", mt, want)
		}
		m := NewMessage(mt)
		if got := string(inputSchema(m)); got != want {
			t.Errorf("%s: schema %s", mt, got)
		}
		if got := string(inputSchema(reflect.ValueOf(m).Elem().Interface())); got != want {
			t.Errorf("%s by value: schema %s", mt, got)
		}
	}
}

package leaguesdk

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
)

// aliases maps field names other implementations use to the profile's
// names, for the message types that have no decoding of their own; the
// players' answers read theirs (choice, accepted) in their own decoding
// (leaguesdk's tolerant.go).
var wireAliases = [...][2]string{
	{"role", "role_in_match"},
	{"rejection_reason", "reason"},
}

// readsAliased reports whether decoding a message into t reads a field
// that has an alias: a struct with a member of that name, by its JSON name
// (compared as encoding/json compares them, ignoring case), or anything
// other than a struct. Renaming is of no use to the others, and it costs a
// search of the whole message (a 1000-row standings table, say).
func readsAliased(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return true
	}
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous && f.Type.Kind() == reflect.Struct {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		for _, a := range wireAliases {
			if strings.EqualFold(name, a[1]) {
				return true
			}
		}
	}
	return false
}

// hasAlias reports whether msg holds the name of an alias field (in
// quotes, anywhere): Normalize has nothing to rename in a message that
// does not.
func hasAlias(msg []byte) bool {
	for _, a := range wireAliases {
		if bytes.Contains(msg, []byte(`"`+a[0]+`"`)) {
			return true
		}
	}
	return false
}

// normalizeAliases renames alias fields of a message object to the profile's
// names when the profile's name is absent. It returns msg itself when
// there is nothing to rename, having only searched it.
func normalizeAliases(msg json.RawMessage) json.RawMessage {
	if len(msg) == 0 || msg[0] != '{' {
		return msg
	}
	if !hasAlias(msg) {
		return msg
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil {
		return msg
	}
	changed := false
	for _, a := range wireAliases {
		if v, ok := m[a[0]]; ok {
			if _, has := m[a[1]]; !has {
				m[a[1]] = v
				changed = true
			}
		}
	}
	if !changed {
		return msg
	}
	out, err := json.Marshal(m)
	if err != nil {
		return msg
	}
	return out
}

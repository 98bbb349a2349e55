package leaguesdk

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/agentleague/league/internal/jsonscan"
)

// Every message the server or the client receives is decoded into a Go
// struct. encoding/json does it by checking the whole text, then walking it
// again through reflection, field by field, with an allocation for most
// values. The message types are plain: strings, integers, booleans, nested
// structs, a few maps, slices and pointers, and fields that decode
// themselves. For such a type a decoder is built once, by reflection, and
// decodes a message in the one pass jsonscan makes over it.
//
// The decoder gives exactly what json.Unmarshal gives, or nothing: whatever
// it is not sure to read as encoding/json does (an escaped key, a number
// with a fraction, a value of the wrong JSON type, an error of a field's
// own decoding, malformed text...) makes it give up, leave the value as it
// found it (zero), and leave the text to encoding/json, which then answers
// it, its error included, as it always did.

// unmarshal is json.Unmarshal(raw, v), by decodeFast when it can.
func unmarshal(raw []byte, v any) error {
	if decodeFast(raw, v) {
		return nil
	}
	return json.Unmarshal(raw, v)
}

// decodeFast decodes the JSON object raw into v, a pointer to a zero
// struct whose type has a decoder (decoderFor), and reports whether it did.
// When it did, json.Unmarshal(raw, v) would have returned nil and left the
// same value in *v. When it did not, *v is zero, as it was: encoding/json
// must decode raw, from the state it would have started from.
//
// Only a zero value is taken: encoding/json merges a message into what the
// value holds (it reuses a map, a slice's array, a pointer's target), and a
// decoding that gives up half way could not put such a value back as it was.
// A zero one it puts back by zeroing it.
func decodeFast(raw []byte, v any) bool {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return false
	}
	e := rv.Elem()
	d := decoderFor(e.Type())
	if d == nil || !e.IsZero() {
		return false
	}
	err := jsonscan.Object(raw, func(key []byte, escaped bool, value []byte) error {
		return d.member(e, key, escaped, value)
	})
	if err != nil {
		e.SetZero()
		return false
	}
	return true
}

// decoders holds the decoder of every type decoderFor was asked about (a
// nil *decoder for a type encoding/json must decode). Like the cache of
// struct fields encoding/json keeps for the same purpose, it holds a pure
// function of a type: an entry, once stored, never changes; two goroutines
// that build one at the same time build equal ones; and a caller sees the
// same results whether an entry is there or not, only sooner.
var decoders sync.Map // reflect.Type → *decoder

// decoderFor returns the decoder of the struct type t, or nil when
// encoding/json must decode t.
func decoderFor(t reflect.Type) *decoder {
	if d, ok := decoders.Load(t); ok {
		return d.(*decoder)
	}
	d, ok := buildDecoder(t, map[reflect.Type]bool{})
	if !ok || d.kind != decStruct {
		d = nil
	}
	actual, _ := decoders.LoadOrStore(t, d)
	return actual.(*decoder)
}

type decodeKind uint8

const (
	decString      decodeKind = iota // a string kind
	decInt                           // a signed integer kind
	decBool                          // a bool kind
	decStruct                        // a struct: its fields by JSON name
	decPointer                       // an unnamed pointer to a decodable type
	decSlice                         // a slice of a decodable type
	decMap                           // a map from a string kind to a decodable type
	decUnmarshaler                   // a named type whose pointer is a json.Unmarshaler
)

// decoder decodes a JSON value into a value of one type.
type decoder struct {
	kind   decodeKind
	typ    reflect.Type
	elem   *decoder       // decPointer, decSlice, decMap: the element's
	fields []fieldDecoder // decStruct: every field encoding/json decodes
}

// fieldDecoder is a struct field as encoding/json finds it by name.
type fieldDecoder struct {
	name  string // the JSON name; no two of a struct's are equal in any case
	index []int  // as reflect.Value.FieldByIndex, through embedded structs
	dec   *decoder
}

// selfDecodingKnown reports whether the types of the package of import
// path pkg decode themselves without side effects: this package's and the
// standard library's (json.RawMessage, time.Time), whose paths have no dot
// in their first element.
func selfDecodingKnown(pkg string) bool {
	first, _, _ := strings.Cut(pkg, "/")
	return pkg == reflect.TypeFor[Envelope]().PkgPath() || !strings.Contains(first, ".")
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// buildDecoder returns the decoder of t; ok is false when encoding/json
// must decode t. seen holds the structs being built, whose recursion (a
// type that holds itself) is left to encoding/json.
func buildDecoder(t reflect.Type, seen map[reflect.Type]bool) (d *decoder, ok bool) {
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface {
		// encoding/json calls a field's own decoding through its address.
		pt := reflect.PointerTo(t)
		if pt.Implements(unmarshalerType) {
			// A method of an unnamed type comes from an embedded field,
			// which encoding/json may or may not call: left to it. So is
			// a type of a package outside this one and the standard
			// library: when its decoding fails, the fallback calls it a
			// second time, which only these are known to bear (their
			// decoding has no side effects).
			return &decoder{kind: decUnmarshaler, typ: t}, t.Name() != "" && selfDecodingKnown(t.PkgPath())
		}
		if pt.Implements(textUnmarshalerType) {
			return nil, false
		}
	}
	switch t.Kind() {
	case reflect.String:
		return &decoder{kind: decString, typ: t}, true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return &decoder{kind: decInt, typ: t}, true
	case reflect.Bool:
		return &decoder{kind: decBool, typ: t}, true
	case reflect.Pointer:
		if t.Name() != "" || t.Elem().Kind() == reflect.Pointer {
			return nil, false
		}
		elem, ok := buildDecoder(t.Elem(), seen)
		return &decoder{kind: decPointer, typ: t, elem: elem}, ok
	case reflect.Slice:
		elem, ok := buildDecoder(t.Elem(), seen)
		return &decoder{kind: decSlice, typ: t, elem: elem}, ok
	case reflect.Map:
		// A key type that decodes itself as text is decoded so by
		// encoding/json: left to it.
		if t.Key().Kind() != reflect.String || reflect.PointerTo(t.Key()).Implements(textUnmarshalerType) {
			return nil, false
		}
		elem, ok := buildDecoder(t.Elem(), seen)
		return &decoder{kind: decMap, typ: t, elem: elem}, ok
	case reflect.Struct:
		if seen[t] {
			return nil, false
		}
		seen[t] = true
		defer delete(seen, t)
		d := &decoder{kind: decStruct, typ: t}
		if !d.addFields(t, nil, seen) {
			return nil, false
		}
		// With no two names equal in any case, the field encoding/json
		// picks for a key (the one of that name, else the first of that
		// name in another case, after its rules for embedded fields) is
		// the one field whose name equals the key in any case.
		for i := range d.fields {
			for j := range i {
				if strings.EqualFold(d.fields[i].name, d.fields[j].name) {
					return nil, false
				}
			}
		}
		return d, true
	}
	return nil, false
}

// addFields adds the fields of the struct t, found at index in the struct
// being built, as encoding/json lists them (typeFields); it reports false
// for a field it lists in a way left to encoding/json (an option ",string",
// an embedded pointer, a name that is not plain ASCII...).
func (d *decoder) addFields(t reflect.Type, index []int, seen map[reflect.Type]bool) bool {
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			ft := sf.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if !sf.IsExported() && ft.Kind() != reflect.Struct {
				continue
			}
		} else if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		for opt := range strings.SplitSeq(opts, ",") {
			if opt == "string" {
				return false
			}
		}
		at := append(index[:len(index):len(index)], i)
		if name == "" && sf.Anonymous {
			switch {
			case sf.Type.Kind() == reflect.Pointer:
				return false
			case sf.Type.Kind() == reflect.Struct:
				pt := reflect.PointerTo(sf.Type)
				if seen[sf.Type] || pt.Implements(unmarshalerType) || pt.Implements(textUnmarshalerType) {
					return false
				}
				seen[sf.Type] = true
				ok := d.addFields(sf.Type, at, seen)
				delete(seen, sf.Type)
				if !ok {
					return false
				}
				continue
			}
		}
		if name == "" {
			name = sf.Name
		}
		if !plainName(name) {
			return false
		}
		fd, ok := buildDecoder(sf.Type, seen)
		if !ok {
			return false
		}
		d.fields = append(d.fields, fieldDecoder{name: name, index: at, dec: fd})
	}
	return true
}

// plainName reports whether name is one encoding/json takes as it is
// written and matches in another case by ASCII letters alone.
func plainName(name string) bool {
	if name == "" {
		return false
	}
	for i := range len(name) {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// member decodes the member key: value of an object into v, a struct of
// d's type. An unknown key is skipped, as encoding/json skips it.
func (d *decoder) member(v reflect.Value, key []byte, escaped bool, value []byte) error {
	if escaped {
		return errSlowPath // encoding/json unquotes the key before it looks
	}
	for i := range d.fields {
		f := &d.fields[i]
		if len(f.name) == len(key) && equalFoldASCII(key, f.name) {
			return f.dec.decode(value, v.FieldByIndex(f.index))
		}
	}
	for _, c := range key {
		if c >= utf8.RuneSelf {
			// encoding/json folds Unicode ("K", the Kelvin sign, is "k"):
			// such a key may name a field.
			return errSlowPath
		}
	}
	return nil
}

// equalFoldASCII reports whether key and name, of one length, are equal
// with ASCII letters compared in any case (encoding/json's foldName).
func equalFoldASCII(key []byte, name string) bool {
	for i := range len(name) {
		a, b := key[i], name[i]
		if a == b {
			continue
		}
		if 'a' <= a && a <= 'z' {
			a -= 'a' - 'A'
		}
		if 'a' <= b && b <= 'z' {
			b -= 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}

// decode decodes the well-formed JSON value b (without white space) into
// v, an addressable value of d's type, as encoding/json does, or returns
// errSlowPath.
func (d *decoder) decode(b []byte, v reflect.Value) error {
	if len(b) == 0 {
		return errSlowPath
	}
	if d.kind == decUnmarshaler {
		// Called for null too, as encoding/json calls it. An error
		// leaves it to encoding/json, which makes the call again and
		// answers the error in its own way.
		if v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(b) != nil {
			return errSlowPath
		}
		return nil
	}
	if b[0] == 'n' { // null
		switch d.kind {
		case decPointer, decSlice, decMap:
			v.SetZero()
		}
		return nil // a string, number, bool or struct is left as it is
	}
	switch d.kind {
	case decString:
		if b[0] != '"' {
			return errSlowPath
		}
		if s, ok := jsonscan.String(b); ok {
			v.SetString(intern(s))
			return nil
		}
		var s string
		if json.Unmarshal(b, &s) != nil {
			return errSlowPath
		}
		v.SetString(s)
	case decInt:
		n, ok := parseInt(b)
		if !ok || v.OverflowInt(n) {
			return errSlowPath
		}
		v.SetInt(n)
	case decBool:
		switch b[0] {
		case 't':
			v.SetBool(true)
		case 'f':
			v.SetBool(false)
		default:
			return errSlowPath
		}
	case decPointer:
		if v.IsNil() {
			v.Set(reflect.New(d.typ.Elem()))
		}
		return d.elem.decode(b, v.Elem())
	case decStruct:
		if b[0] != '{' {
			return errSlowPath
		}
		return jsonscan.Members(b, func(key []byte, escaped bool, value []byte) error {
			return d.member(v, key, escaped, value)
		})
	case decSlice:
		return d.decodeSlice(b, v)
	case decMap:
		return d.decodeMap(b, v)
	}
	return nil
}

// decodeSlice decodes the array b into the slice v with encoding/json's
// steps (it decodes into the elements already there, grows the slice by
// one at a time and cuts it to the array's length), so that a repeated
// member leaves what encoding/json leaves.
func (d *decoder) decodeSlice(b []byte, v reflect.Value) error {
	if b[0] != '[' {
		return errSlowPath
	}
	i := 0
	err := jsonscan.Elements(b, func(elem []byte) error {
		if i >= v.Cap() {
			v.Grow(1)
		}
		if i >= v.Len() {
			v.SetLen(i + 1)
		}
		if err := d.elem.decode(elem, v.Index(i)); err != nil {
			return err
		}
		i++
		return nil
	})
	if err != nil {
		return err
	}
	if i < v.Len() {
		v.SetLen(i)
	}
	if i == 0 {
		v.Set(reflect.MakeSlice(d.typ, 0, 0))
	}
	return nil
}

// decodeMap decodes the object b into the map v as encoding/json does:
// into the map already there, if any, each value decoded into a zero
// element.
func (d *decoder) decodeMap(b []byte, v reflect.Value) error {
	if b[0] != '{' {
		return errSlowPath
	}
	if v.IsNil() {
		v.Set(reflect.MakeMap(d.typ))
	}
	elem := reflect.New(d.typ.Elem()).Elem()
	key := reflect.New(d.typ.Key()).Elem()
	return jsonscan.Members(b, func(k []byte, escaped bool, value []byte) error {
		if escaped || !utf8.Valid(k) {
			return errSlowPath // encoding/json unquotes the key, or mends its UTF-8
		}
		elem.SetZero()
		if err := d.elem.decode(value, elem); err != nil {
			return err
		}
		key.SetString(string(k))
		v.SetMapIndex(key, elem)
		return nil
	})
}

// parseInt reads the JSON number b as an integer, as strconv.ParseInt
// reads it, when it is one of at most 18 digits (so that it cannot
// overflow); ok is false for any other number.
func parseInt(b []byte) (n int64, ok bool) {
	neg := b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

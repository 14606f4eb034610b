package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/seokit/seokit/httpapi/service"
)

// decodeJSON reads r's body into v: the Content-Type must be
// application/json, the body at most limit bytes, a single JSON value with
// no unknown fields and no trailing data. Errors are *service.FieldError (400) naming the
// field at fault ("Content-Type", "body" or the JSON path of the field).
func decodeJSON(w http.ResponseWriter, r *http.Request, limit int64, v any) error {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return invalid("Content-Type", "Content-Type must be application/json")
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" {
		return invalid("Content-Type", "Content-Type must be application/json, not "+strconv.Quote(clip(ct)))
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		return decodeError(err, limit)
	}
	return decodeBody(body, limit, v)
}

// DecodeArguments decodes a JSON object into v as request bodies are
// decoded: no unknown fields, no trailing data, errors a
// *service.FieldError naming the field at fault by its JSON path. The MCP
// server decodes tool arguments with it, so a tool refuses what the
// matching /v1 endpoint refuses, in the same words; what the body's
// errors call "body" (the whole value: not an object, not JSON) is
// "arguments" here.
func DecodeArguments(body []byte, v any) error {
	err := decodeBody(body, int64(len(body))+1, v)
	if fe, ok := err.(*service.FieldError); ok && fe.Field == "body" {
		fe.Field = "arguments"
		fe.Message = strings.Replace(fe.Message, "the body", "the arguments", 1)
	}
	return err
}

func decodeBody(body []byte, limit int64, v any) error {
	// encoding/json replaces invalid UTF-8 with U+FFFD without a word, so
	// a bad byte would be stored as that: refuse it, naming its value.
	if !utf8.Valid(body) {
		f := valuePathAt(body, invalidUTF8At(body))
		return invalid(f, f+" is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		e := decodeError(err, limit)
		ae, ok := e.(*service.FieldError)
		var te *json.UnmarshalTypeError
		switch {
		case !ok:
		case ae.Field == "body" && ae.Message == "the body is not valid JSON":
			// A value its type refused, such as a malformed time: name it.
			if f := badTimeField(body, reflect.TypeOf(v)); f != "" {
				ae.Field, ae.Message = f, f+` must be an RFC 3339 time such as "2026-12-01T06:00:00Z"`
			}
		case strings.HasPrefix(ae.Message, "unknown field "):
			if p := unknownFieldPath(body, reflect.TypeOf(v), ae.Field); p != "" {
				ae.Field = p
				ae.Message = "unknown field " + strconv.Quote(clip(p))
			}
		case errors.As(err, &te) && te.Field != "":
			// The decoder names "ids" for a number in "ids": name the element.
			if p := typeErrorPath(body, reflect.TypeOf(v), te.Field); p != "" && p != te.Field {
				ae.Field = p
				ae.Message = strings.Replace(ae.Message, te.Field, p, 1)
			}
		}
		return e
	}
	// One value only: anything but white space after it is refused.
	var extra json.RawMessage
	if err := dec.Decode(&extra); err != io.EOF {
		if err == nil {
			return invalid("body", "the body must hold a single JSON object; found data after it")
		}
		return decodeError(err, limit)
	}
	// encoding/json also decodes an escaped lone UTF-16 surrogate
	// ("\ud800") to U+FFFD without a word: refuse it as it refuses a bad
	// byte. The body parsed, so the escape is in a string.
	if off := loneSurrogateAt(body); off >= 0 {
		f := valuePathAt(body, off)
		return invalid(f, f+` is not valid UTF-8: it holds `+string(body[off:off+6])+`, half of a UTF-16 surrogate pair, alone`)
	}
	return nil
}

// loneSurrogateAt returns the offset in body of the first \u escape of a
// UTF-16 surrogate that is not half of a pair (RFC 8259 section 8.2: such
// a string's behaviour is unpredictable), or -1. body is valid JSON, so
// every backslash is in a string.
func loneSurrogateAt(body []byte) int {
	for i := 0; ; {
		k := bytes.IndexByte(body[i:], '\\')
		if k < 0 || i+k+1 >= len(body) {
			return -1
		}
		i += k
		if body[i+1] != 'u' {
			i += 2 // \\, \" and the other one-letter escapes
			continue
		}
		r := hex4(body[i+2 : i+6])
		switch {
		case r >= 0xD800 && r < 0xDC00:
			if len(body) < i+12 || body[i+6] != '\\' || body[i+7] != 'u' {
				return i
			}
			if lo := hex4(body[i+8 : i+12]); lo < 0xDC00 || lo > 0xDFFF {
				return i
			}
			i += 12
		case r >= 0xDC00 && r <= 0xDFFF:
			return i
		default:
			i += 6
		}
	}
}

// hex4 decodes the four hex digits of a \u escape of valid JSON.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		switch {
		case c <= '9':
			c -= '0'
		case c >= 'a':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// decodeError turns a json decoding error into a 400 naming the field.
func decodeError(err error, limit int64) error {
	var (
		mbe *http.MaxBytesError
		se  *json.SyntaxError
		te  *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &mbe):
		return invalid("body", fmt.Sprintf("the body is larger than %d bytes", limit))
	case errors.Is(err, io.EOF):
		return invalid("body", "the body is empty; send a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return invalid("body", "the body is not valid JSON: it ends early")
	case errors.As(err, &se):
		return invalid("body", fmt.Sprintf("the body is not valid JSON at byte %d", se.Offset))
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			return invalid("body", "the body must be a JSON object, not "+te.Value)
		}
		return invalid(field, fmt.Sprintf("%s must be %s, not %s", field, jsonKind(te.Type.Kind().String()), te.Value))
	}
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		name, _ := strconv.Unquote(f)
		if name == "" {
			name = f
		}
		return invalid(name, "unknown field "+strconv.Quote(clip(name)))
	}
	return invalid("body", "the body is not valid JSON")
}

// jsonKind names a Go kind as a JSON type.
func jsonKind(k string) string {
	switch k {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "an integer"
	case "float32", "float64":
		return "a number"
	case "slice", "array":
		return "an array"
	case "struct", "map":
		return "an object"
	}
	return "of another type"
}

// clip shortens s for messages.
func clip(s string) string {
	const max = 100
	if len(s) <= max {
		return s
	}
	for i := max; i > 0; i-- {
		if (s[i] & 0xC0) != 0x80 {
			return s[:i] + "…"
		}
	}
	return ""
}

// queryBool parses an optional boolean query parameter.
func queryBool(r *http.Request, name string) (bool, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, invalid(name, name+" must be true or false")
	}
	return b, nil
}

// unknownFieldPath finds the dotted path of the first object member named
// name that t does not declare, walking the decoded body alongside t.
func unknownFieldPath(body []byte, t reflect.Type, name string) string {
	var doc any
	if json.Unmarshal(body, &doc) != nil {
		return ""
	}
	return findUnknown(doc, t, name, "")
}

func findUnknown(doc any, t reflect.Type, name, prefix string) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch d := doc.(type) {
	case map[string]any:
		if t.Kind() != reflect.Struct {
			return ""
		}
		fields := map[string]reflect.Type{}
		for _, f := range jsonFields(t) {
			if !f.IsExported() {
				continue
			}
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if tag == "-" {
				continue
			}
			if tag == "" {
				tag = f.Name
			}
			fields[strings.ToLower(tag)] = f.Type
		}
		for k, v := range d {
			ft, ok := fields[strings.ToLower(k)]
			if !ok {
				if k == name {
					return prefix + k
				}
				continue
			}
			if p := findUnknown(v, ft, name, prefix+k+"."); p != "" {
				return p
			}
		}
	case []any:
		if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
			return ""
		}
		for i, v := range d {
			if p := findUnknown(v, t.Elem(), name, strings.TrimSuffix(prefix, ".")+"["+strconv.Itoa(i)+"]."); p != "" {
				return p
			}
		}
	}
	return ""
}

// jsonFields are the fields of the struct type t that encoding/json
// decodes, those of embedded structs included.
func jsonFields(t reflect.Type) []reflect.StructField {
	var out []reflect.StructField
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous && f.Type.Kind() == reflect.Struct && f.Tag.Get("json") == "" {
			continue // its fields are listed too
		}
		out = append(out, f)
	}
	return out
}

// typeErrorPath finds the path, with array indexes ("ids[3]",
// "options.mute[0]"), of the first value under the dotted field path that
// does not fit t's type there, walking the decoded body alongside t.
func typeErrorPath(body []byte, t reflect.Type, field string) string {
	var doc any
	if json.Unmarshal(body, &doc) != nil {
		return ""
	}
	return findMisfit(doc, t, strings.Split(field, "."), "")
}

func findMisfit(doc any, t reflect.Type, path []string, prefix string) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if len(path) == 0 {
		if d, ok := doc.([]any); ok && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			for i, v := range d {
				if p := findMisfit(v, t.Elem(), nil, prefix+"["+strconv.Itoa(i)+"]"); p != "" {
					return p
				}
			}
			return ""
		}
		if !fitsJSON(doc, t) {
			return prefix
		}
		return ""
	}
	switch d := doc.(type) {
	case []any:
		if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
			return ""
		}
		for i, v := range d {
			if p := findMisfit(v, t.Elem(), path, prefix+"["+strconv.Itoa(i)+"]"); p != "" {
				return p
			}
		}
	case map[string]any:
		if t.Kind() != reflect.Struct {
			return ""
		}
		// The decoder names an embedded struct's members through it
		// ("options.Config.extract.max"): skip its name.
		if f, ok := t.FieldByName(path[0]); ok && f.Anonymous && f.Type.Kind() == reflect.Struct && f.Tag.Get("json") == "" {
			return findMisfit(doc, f.Type, path[1:], prefix)
		}
		for _, f := range jsonFields(t) {
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if tag == "" {
				tag = f.Name
			}
			if !f.IsExported() || tag == "-" || tag != path[0] {
				continue
			}
			for k, v := range d {
				if strings.EqualFold(k, tag) {
					if prefix != "" {
						k = prefix + "." + k
					}
					return findMisfit(v, f.Type, path[1:], k)
				}
			}
		}
	}
	return ""
}

// fitsJSON reports whether a decoded JSON value is of a JSON type that
// decodes into t (null fits anything).
func fitsJSON(v any, t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.String:
		_, ok := v.(string)
		return ok || v == nil
	case reflect.Bool:
		_, ok := v.(bool)
		return ok || v == nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		f, ok := v.(float64)
		return (ok && f == float64(int64(f))) || v == nil
	case reflect.Float32, reflect.Float64:
		_, ok := v.(float64)
		return ok || v == nil
	}
	return true // objects, arrays and types with their own decoding: let them be
}

// badTimeField returns the JSON name of the first top-level time.Time or
// *time.Time field of the struct t points to whose value in body is not a
// time, or "".
func badTimeField(body []byte, t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return ""
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) != nil {
		return ""
	}
	timeType := reflect.TypeFor[time.Time]()
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Type != timeType && f.Type != reflect.PointerTo(timeType) {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		raw, ok := fields[name]
		if !ok {
			continue
		}
		var v *time.Time
		if json.Unmarshal(raw, &v) != nil {
			return name
		}
	}
	return ""
}

// invalidUTF8At returns the offset of the first byte of body that is not
// UTF-8, or len(body).
func invalidUTF8At(body []byte) int {
	off := 0
	for off < len(body) {
		r, n := utf8.DecodeRune(body[off:])
		if r == utf8.RuneError && n == 1 {
			break
		}
		off += n
	}
	return off
}

// valuePathAt names the value of body (valid JSON but for its encoding)
// that holds the byte at off, by its path as the decoding errors name
// fields ("name", "keywords[1]", "config.headers.X"): the object holding
// it when the byte is in a member's name, "body" at the top or when body
// does not parse.
func valuePathAt(body []byte, off int) string {
	type frame struct {
		obj     bool
		wantKey bool // an object's next string is a member's name
		key     string
		idx     int
	}
	var st []frame
	path := func(n int) string {
		var b strings.Builder
		for _, f := range st[:n] {
			if f.obj {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(f.key)
			} else {
				fmt.Fprintf(&b, "[%d]", f.idx)
			}
		}
		if b.Len() == 0 {
			return "body"
		}
		return b.String()
	}
	// next moves the innermost container past the value just read.
	next := func() {
		if len(st) == 0 {
			return
		}
		if top := &st[len(st)-1]; top.obj {
			top.wantKey = true
		} else {
			top.idx++
		}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	for {
		tok, err := dec.Token()
		if err != nil {
			return "body"
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				st = append(st, frame{obj: true, wantKey: true})
			case '[':
				st = append(st, frame{})
			default:
				st = st[:len(st)-1]
				next()
			}
			continue
		case string:
			if len(st) > 0 && st[len(st)-1].obj && st[len(st)-1].wantKey {
				if int(dec.InputOffset()) > off {
					return path(len(st) - 1)
				}
				st[len(st)-1].key, st[len(st)-1].wantKey = t, false
				continue
			}
			if int(dec.InputOffset()) > off {
				return path(len(st))
			}
		}
		next()
	}
}

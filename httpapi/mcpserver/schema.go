package mcpserver

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/google/jsonschema-go/jsonschema"
)

// Tool schemas are part of every tools/list answer, which a client puts in
// its model's context: the schemas inferred from the Go types are written
// out compactly. An output schema loses "additionalProperties": false and
// "required" (the server writes those objects: the keywords tell a client
// nothing it can act on, and dropping them never fails a valid answer),
// and in any schema a subschema that occurs more than once is
// written once under "$defs" and referred to by "$ref" (the evidence of a
// finding, a job, a project). Input schemas keep additionalProperties
// false: it says an unknown argument is refused.

// minShared is the size in bytes of JSON from which a repeated subschema
// moves to $defs: below it a {"$ref":"#/$defs/name"} saves little.
const minShared = 96

// compactSchema returns s as a JSON tree, written compactly as described
// above; output says whether s is an output schema.
func compactSchema(s *jsonschema.Schema, output bool) (map[string]any, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	var root map[string]any
	if err := json.Unmarshal(b, &root); err != nil {
		return nil, err
	}
	// jsonschema-go writes the schema of any value as true; clients such
	// as the TypeScript SDK want every property's schema an object.
	anyValue := func(m map[string]any, _ string) {
		if m["items"] == true {
			m["items"] = map[string]any{}
		}
		for _, k := range schemaChildMaps {
			if mm, ok := m[k].(map[string]any); ok {
				for n, v := range mm {
					if v == true {
						mm[n] = map[string]any{}
					}
				}
			}
		}
	}
	eachSchema(root, anyValue)
	anyValue(root, "")
	if output {
		trim := func(m map[string]any, _ string) {
			if ap, ok := m["additionalProperties"].(bool); ok && !ap {
				delete(m, "additionalProperties")
			}
			delete(m, "required")
		}
		eachSchema(root, trim)
		trim(root, "")
	}
	defs := map[string]any{}
	root["$defs"] = defs // walked with the rest
	for {
		// Count the subschemas by their JSON, the root's own excepted,
		// and take the largest repeated one.
		type seen struct {
			n    int
			name string
		}
		count := map[string]*seen{}
		eachSchema(root, func(m map[string]any, name string) {
			if len(m) == 1 && m["$ref"] != nil {
				return
			}
			k, _ := json.Marshal(m)
			c := count[string(k)]
			if c == nil {
				c = &seen{name: name}
				count[string(k)] = c
			}
			c.n++
		})
		best := ""
		for k, c := range count {
			if c.n >= 2 && len(k) >= minShared && (len(k) > len(best) || len(k) == len(best) && k < best) {
				best = k
			}
		}
		if best == "" {
			break
		}
		name := defName(count[best].name, defs)
		var def map[string]any
		if err := json.Unmarshal([]byte(best), &def); err != nil {
			return nil, err
		}
		replaceSchema(root, best, "#/$defs/"+name)
		defs[name] = def
	}
	if len(defs) == 0 {
		delete(root, "$defs")
	}
	return root, nil
}

// defName names a $defs entry after the property it was found under.
func defName(prop string, defs map[string]any) string {
	if prop == "" {
		prop = "def"
	}
	name := prop
	for i := 2; defs[name] != nil; i++ {
		name = fmt.Sprintf("%s%d", prop, i)
	}
	return name
}

// schemaChildren are the keywords whose value is a subschema, a map of
// subschemas by name, or a list of subschemas.
var (
	schemaChild     = []string{"items", "additionalProperties", "not", "contains", "if", "then", "else", "propertyNames"}
	schemaChildMaps = []string{"properties", "patternProperties", "$defs", "dependentSchemas"}
	schemaChildList = []string{"anyOf", "oneOf", "allOf", "prefixItems"}
)

// eachSchema calls f for every subschema below root (not root itself),
// children before their parent, with the name of the property (or $defs
// entry) it describes, or the enclosing one's for items.
func eachSchema(root map[string]any, f func(m map[string]any, name string)) {
	var walk func(m map[string]any, name string)
	walk = func(m map[string]any, name string) {
		visit := func(v any, name string) {
			if c, ok := v.(map[string]any); ok {
				walk(c, name)
				f(c, name)
			}
		}
		for _, k := range schemaChild {
			visit(m[k], name)
		}
		for _, k := range schemaChildMaps {
			if mm, ok := m[k].(map[string]any); ok {
				keys := make([]string, 0, len(mm))
				for n := range mm {
					keys = append(keys, n)
				}
				sort.Strings(keys)
				for _, n := range keys {
					visit(mm[n], n)
				}
			}
		}
		for _, k := range schemaChildList {
			if l, ok := m[k].([]any); ok {
				for _, v := range l {
					visit(v, name)
				}
			}
		}
	}
	walk(root, "")
}

// replaceSchema replaces each subschema of root whose JSON is key by a
// reference to ref.
func replaceSchema(root map[string]any, key, ref string) {
	eachSchema(root, func(m map[string]any, _ string) {
		if len(m) == 1 && m["$ref"] != nil {
			return
		}
		if k, _ := json.Marshal(m); string(k) == key {
			clear(m)
			m["$ref"] = ref
		}
	})
}

package mcpserver

import (
	"encoding/json"
	"testing"
)

type schemaEvidence struct {
	Detail   string   `json:"detail"`
	Element  string   `json:"element"`
	Line     int      `json:"line"`
	Measured *float64 `json:"measured"`
	URLs     []string `json:"urls"`
}

type schemaFinding struct {
	ID       string           `json:"id"`
	Evidence schemaEvidence   `json:"evidence"`
	Examples []schemaEvidence `json:"examples"`
	Raw      json.RawMessage  `json:"raw"`
	Short    []string         `json:"short"`
	Other    []string         `json:"other"`
}

func TestCompactSchema(t *testing.T) {
	tests := []struct {
		name   string
		output bool
		want   string
	}{
		{"output", true, `{"$defs":{"evidence":{"properties":{"detail":{"type":"string"},"element":{"type":"string"},"line":{"type":"integer"},"measured":{"type":["null","number"]},"urls":{"items":{"type":"string"},"type":["null","array"]}},"type":"object"}},` +
			`"properties":{"evidence":{"$ref":"#/$defs/evidence"},"examples":{"items":{"$ref":"#/$defs/evidence"},"type":["null","array"]},"id":{"type":"string"},"other":{"items":{"type":"string"},"type":["null","array"]},"raw":{},"short":{"items":{"type":"string"},"type":["null","array"]}},"type":"object"}`},
		{"input keeps additionalProperties and required", false, `{"$defs":{"evidence":{"additionalProperties":false,"properties":{"detail":{"type":"string"},"element":{"type":"string"},"line":{"type":"integer"},"measured":{"type":["null","number"]},"urls":{"items":{"type":"string"},"type":["null","array"]}},"required":["detail","element","line","measured","urls"],"type":"object"}},` +
			`"additionalProperties":false,"properties":{"evidence":{"$ref":"#/$defs/evidence"},"examples":{"items":{"$ref":"#/$defs/evidence"},"type":["null","array"]},"id":{"type":"string"},"other":{"items":{"type":"string"},"type":["null","array"]},"raw":{},"short":{"items":{"type":"string"},"type":["null","array"]}},"required":["id","evidence","examples","raw","short","other"],"type":"object"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := compactSchema(schemaFor[schemaFinding](), tt.output)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(m)
			if string(b) != tt.want {
				t.Errorf("got  %s\nwant %s", b, tt.want)
			}
		})
	}
}

package keyed_test

import (
	"fmt"
	"testing"

	"github.com/seokit/seokit/internal/keyed"
)

func TestMap(t *testing.T) {
	tests := []struct {
		name string
		max  int
		ops  func(m *keyed.Map[int])
		want map[string]int // keys held and their values
	}{
		{"bounded", 2, func(m *keyed.Map[int]) { m.Add("a", 1); m.Add("b", 2); m.Add("c", 3) }, map[string]int{"b": 2, "c": 3}},
		{"get marks used", 2, func(m *keyed.Map[int]) { m.Add("a", 1); m.Add("b", 2); m.Get("a"); m.Add("c", 3) }, map[string]int{"a": 1, "c": 3}},
		{"add replaces", 2, func(m *keyed.Map[int]) { m.Add("a", 1); m.Add("b", 2); m.Add("a", 9); m.Add("c", 3) }, map[string]int{"a": 9, "c": 3}},
		{"get or add keeps", 2, func(m *keyed.Map[int]) {
			m.Add("a", 1)
			m.GetOrAdd("a", func() int { return 5 })
			m.GetOrAdd("b", func() int { return 6 })
		}, map[string]int{"a": 1, "b": 6}},
		{"delete", 2, func(m *keyed.Map[int]) { m.Add("a", 1); m.Add("b", 2); m.Delete("a"); m.Delete("x") }, map[string]int{"b": 2}},
		{"bound of at least one", 0, func(m *keyed.Map[int]) { m.Add("a", 1); m.Add("b", 2) }, map[string]int{"b": 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := keyed.New[int](tt.max)
			tt.ops(m)
			if m.Len() != len(tt.want) {
				t.Errorf("Len = %d, want %d", m.Len(), len(tt.want))
			}
			for k, w := range tt.want {
				if v, ok := m.Get(k); !ok || v != w {
					t.Errorf("Get(%q) = %d, %v, want %d", k, v, ok, w)
				}
			}
		})
	}
}

func ExampleMap() {
	m := keyed.New[int](2)
	m.Add("10.0.0.1", 1)
	m.Add("10.0.0.2", 1)
	m.Get("10.0.0.1") // used: 10.0.0.2 is now the least recently used
	m.Add("10.0.0.3", 1)
	_, ok := m.Get("10.0.0.2")
	fmt.Println(m.Len(), ok)
	// Output: 2 false
}

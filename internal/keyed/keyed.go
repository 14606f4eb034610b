package keyed

import "container/list"

// Map is a bounded map from string keys to values of type V, the least
// recently used key dropped first when an Add exceeds its bound. It is not
// safe for concurrent use: its users hold their own lock, usually over a
// read-modify-write of the value as well.
type Map[V any] struct {
	max   int
	ll    *list.List // of *entry[V], most recently used first
	items map[string]*list.Element
}

type entry[V any] struct {
	key string
	val V
}

// New returns a Map holding at most limit keys (at least 1).
func New[V any](limit int) *Map[V] {
	return &Map[V]{max: max(limit, 1), ll: list.New(), items: map[string]*list.Element{}}
}

// Get returns the value of key and marks it used.
func (m *Map[V]) Get(key string) (V, bool) {
	e, ok := m.items[key]
	if !ok {
		var zero V
		return zero, false
	}
	m.ll.MoveToFront(e)
	return e.Value.(*entry[V]).val, true
}

// Add sets the value of key, marks it used and drops the least recently
// used key when the map is over its bound.
func (m *Map[V]) Add(key string, v V) {
	if e, ok := m.items[key]; ok {
		e.Value.(*entry[V]).val = v
		m.ll.MoveToFront(e)
		return
	}
	m.items[key] = m.ll.PushFront(&entry[V]{key, v})
	for m.ll.Len() > m.max {
		last := m.ll.Back()
		m.ll.Remove(last)
		delete(m.items, last.Value.(*entry[V]).key)
	}
}

// GetOrAdd returns the value of key, adding mk() when it is absent.
func (m *Map[V]) GetOrAdd(key string, mk func() V) V {
	if v, ok := m.Get(key); ok {
		return v
	}
	v := mk()
	m.Add(key, v)
	return v
}

// Delete removes key.
func (m *Map[V]) Delete(key string) {
	if e, ok := m.items[key]; ok {
		m.ll.Remove(e)
		delete(m.items, key)
	}
}

// Len returns the number of keys held.
func (m *Map[V]) Len() int { return m.ll.Len() }

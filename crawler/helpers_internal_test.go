package crawler

// ptr returns a pointer to v, for the optional fields of PageSummary.
func ptr[T any](v T) *T { return &v }

package seo

import (
	"context"
	"errors"
)

// Temporary until the safe fetcher lands.
type FetcherOptions struct {
	AllowPrivate bool
	UserAgent    string
}
type Fetcher struct{}

func NewFetcher(o *FetcherOptions) *Fetcher { return &Fetcher{} }
func (f *Fetcher) Fetch(ctx context.Context, r *Request) (*Response, error) {
	return nil, errors.New("todo")
}

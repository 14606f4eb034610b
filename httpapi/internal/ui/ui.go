// Package ui holds the look shared by seokit's web pages: the stylesheet
// of the dashboard (package dashboard serves it as a file) and of the OAuth
// consent page (package auth inlines it under a CSP hash), so both pages
// come from one source.
package ui

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
)

// CSS is the stylesheet of every seokit web page.
//
//go:embed app.css
var CSS string

// CSSHash is the Content-Security-Policy source expression of CSS inlined
// verbatim in a <style> element: 'sha256-...'.
var CSSHash = func() string {
	sum := sha256.Sum256([]byte(CSS))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}()

// Package rendertest is a conformance suite for render.Renderer
// implementations: [Run] renders pages of a loopback test site and checks
// that a client-rendered page is rendered (its open shadow roots as
// declarative shadow DOM), that every attempt of a page to reach a
// forbidden address (another loopback port, a cloud metadata address, a
// rebinding host name; directly or by redirect) is refused and reported,
// that the time budget is honoured and that JavaScript errors are reported.
package rendertest

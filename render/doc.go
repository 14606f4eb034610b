// Package render defines how seokit renders a page with JavaScript, as a
// browser (and Google's renderer) sees it, and what a rendering returns: the
// rendered DOM, the page's errors, the requests it made, lab Web Vitals and
// screenshots.
//
// [Renderer] is the driver interface; package render/chromium implements it
// with a pool of headless Chromium processes. The analyzer and the crawler
// take a Renderer in their options and a [Mode] that says which pages to
// render: [None] (the default, fastest), [Auto] (only pages whose raw HTML
// looks like an application shell) or [Always].
//
// Every measurement a rendering returns is a lab measurement, made with the
// device profile the Result names; none of it is field data.
package render

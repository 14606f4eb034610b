package seo

import (
	"strings"

	"golang.org/x/text/language"
)

// Locale is a language-region pair such as en-US, parsed from the xx-XX form
// the API uses.
type Locale struct {
	// Language is the lowercase ISO 639-1 code ("en").
	Language string
	// Region is the uppercase ISO 3166-1 alpha-2 code ("US").
	Region string
}

// ParseLocale parses a tag of the form xx-XX (also xx_XX, any case) whose
// language and region are known ISO codes. Anything else is an *InputError
// for the field "locale".
func ParseLocale(s string) (Locale, error) {
	bad := func(reason string) (Locale, error) {
		return Locale{}, &InputError{Field: "locale", Value: s, Reason: reason}
	}
	t := strings.TrimSpace(s)
	if len(t) != 5 || (t[2] != '-' && t[2] != '_') {
		return bad("must have the form xx-XX, a two-letter language and a two-letter region, such as en-US")
	}
	lang, reg := strings.ToLower(t[:2]), strings.ToUpper(t[3:])
	for _, c := range lang + reg {
		if (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') {
			return bad("must have the form xx-XX with letters only, such as en-US")
		}
	}
	base, err := language.ParseBase(lang)
	if err != nil || base.String() != lang {
		return bad("unknown language code " + strings.ToLower(t[:2]))
	}
	r, err := language.ParseRegion(reg)
	if err != nil || !r.IsCountry() || r.String() != reg {
		return bad("unknown region code " + strings.ToUpper(t[3:]))
	}
	return Locale{Language: lang, Region: reg}, nil
}

// String returns the locale as xx-XX.
func (l Locale) String() string {
	if l.Language == "" {
		return ""
	}
	return l.Language + "-" + l.Region
}

// Tag returns the locale as a language.Tag.
func (l Locale) Tag() language.Tag {
	return language.Make(l.String())
}

// MarshalText encodes the locale as xx-XX.
func (l Locale) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText parses xx-XX.
func (l *Locale) UnmarshalText(b []byte) error {
	v, err := ParseLocale(string(b))
	if err != nil {
		return err
	}
	*l = v
	return nil
}

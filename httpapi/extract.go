package httpapi

import (
	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/seo"
)

// validateExtraction validates the extractors and search rules of a
// request: at most analyzer.MaxExtractors and MaxSearchRules, each valid.
// Errors are *seo.InputError naming the field, such as
// "options.extract[0].expr" for a bad selector, XPath or regex.
func validateExtraction(extract []analyzer.Extractor, search []analyzer.SearchRule) error {
	if _, err := analyzer.CompileExtractors(extract); err != nil {
		return optionsField(err)
	}
	if _, err := analyzer.CompileSearchRules(search); err != nil {
		return optionsField(err)
	}
	return nil
}

// optionsField prefixes "options." to the field of an input error.
func optionsField(err error) error {
	if ie, ok := seo.AsInputError(err); ok {
		return ie.WithField("options." + ie.Field)
	}
	return err
}

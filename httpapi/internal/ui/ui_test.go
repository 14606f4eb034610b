package ui

import (
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"
)

func TestCSS(t *testing.T) {
	if !strings.Contains(CSS, "--accent") || !strings.Contains(CSS, "@media (max-width:640px)") {
		t.Fatalf("stylesheet lacks the colour variables or the phone layout")
	}
	if strings.Contains(CSS, "</") {
		t.Error("stylesheet contains </ and cannot be inlined in <style>")
	}
	sum := sha256.Sum256([]byte(CSS))
	if want := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; CSSHash != want {
		t.Errorf("CSSHash %s, want %s", CSSHash, want)
	}
}

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestSecretFile: the secret that seals stored credentials survives a
// restart (the same file gives the same secret), is kept with mode 0600,
// and a damaged file is an error, never a new secret.
func TestSecretFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "seokit.db.secret")
	a, err := secretFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := secretFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 32 || !bytes.Equal(a, b) {
		t.Errorf("secrets %x and %x, want one 32-byte secret", a, b)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	if err := os.WriteFile(path, []byte("short\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := secretFile(path); err == nil {
		t.Error("a damaged secret file was accepted")
	}
}

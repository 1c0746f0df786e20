package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The layout comes from extension-ci-tools scripts/append_extension_metadata.py: the 22-byte Wasm header,
// then FIELD8..FIELD6 unused, FIELD5 abi_type, FIELD4 extension version, FIELD3 DuckDB (C API) version,
// FIELD2 platform, FIELD1 the magic "4", then 256 bytes of signature space.
func TestEncodeLayout(t *testing.T) {
	f, err := Encode(Metadata{ABIType: "C_STRUCT", ExtensionVersion: "v0.1.0", APIVersion: "v1.2.0", Platform: "linux_amd64"})
	if err != nil {
		t.Fatal(err)
	}
	if len(f) != 534 {
		t.Fatalf("footer is %d bytes, want 534", len(f))
	}
	wantHeader := append(append([]byte{0x00, 0x93, 0x04, 0x10}, "duckdb_signature"...), 0x80, 0x04)
	if !bytes.Equal(f[:22], wantHeader) {
		t.Errorf("header % x, want % x", f[:22], wantHeader)
	}
	field := func(i int) []byte { return f[22+32*i : 22+32*(i+1)] }
	for i, want := range []string{"", "", "", "C_STRUCT", "v0.1.0", "v1.2.0", "linux_amd64", "4"} {
		padded := make([]byte, 32)
		copy(padded, want)
		if !bytes.Equal(field(i), padded) {
			t.Errorf("field %d = %q, want %q NUL-padded", i, field(i), want)
		}
	}
	if !bytes.Equal(f[22+256:], make([]byte, 256)) {
		t.Error("signature space is not zero")
	}
	// DuckDB reads the last 512 bytes: the magic is the last field before the signature.
	if got := f[534-512+7*32]; got != '4' {
		t.Errorf("magic byte at DuckDB's offset = %q, want '4'", got)
	}
}

func TestRoundTripAndErrors(t *testing.T) {
	m := Metadata{ABIType: "C_STRUCT", ExtensionVersion: "dev", APIVersion: "v9.9.9", Platform: "osx_arm64"}
	f, err := Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(append([]byte("library bytes"), f...))
	if err != nil || got != m {
		t.Fatalf("Decode = %+v, %v; want %+v", got, err, m)
	}
	if _, err := Encode(Metadata{Platform: string(make([]byte, 33))}); err == nil {
		t.Error("a 33-byte field was accepted")
	}
	if _, err := Decode([]byte("short")); err == nil {
		t.Error("a short file was accepted")
	}
}

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "lib.so"), filepath.Join(dir, "x.duckdb_extension")
	if err := os.WriteFile(in, []byte("ELF..."), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-in", in, "-out", out, "-api-version", "v1.2.0"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	stdout.Reset()
	if code := run([]string{"-print", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if want := "abi_type=C_STRUCT extension_version=dev api_version=v1.2.0 platform=linux_amd64\n"; stdout.String() != want {
		t.Errorf("-print = %q, want %q", stdout.String(), want)
	}
}

package main

import (
	"bytes"
	"errors"
	"fmt"
)

// The metadata footer DuckDB reads from the end of a loadable extension (534 bytes).
//
// Layout, as written by DuckDB's extension-ci-tools scripts/append_extension_metadata.py and parsed by
// ExtensionHelper::ParseExtensionMetaData in DuckDB's src/main/extension/extension_load.cpp (which reads the
// last 512 bytes, splits the first 256 of them into eight 32-byte fields and reverses their order):
//
//	22 bytes  WebAssembly custom-section header: 0x00, LEB128(531) = 0x93 0x04, name length 0x10,
//	          "duckdb_signature", LEB128(512) = 0x80 0x04 (so that a Wasm build stays a valid module)
//	8 × 32    NUL-padded ASCII fields, in file order:
//	          [0..2] unused, [3] abi_type, [4] extension version, [5] DuckDB version (for abi_type C_STRUCT:
//	          the C API version, e.g. v1.2.0), [6] platform, [7] magic "4"
//	256 bytes signature space (zero: the file is unsigned)
const (
	headerSize    = 22
	fieldSize     = 32
	fieldCount    = 8
	signatureSize = 256
	// Size is the whole footer: header, fields and signature space.
	Size = headerSize + fieldCount*fieldSize + signatureSize
)

var header = append(append([]byte{0x00, 0x93, 0x04, 0x10}, "duckdb_signature"...), 0x80, 0x04)

// Metadata is what the footer declares about the library in front of it.
type Metadata struct {
	ABIType          string // C_STRUCT: the stable C extension API
	ExtensionVersion string
	APIVersion       string // for C_STRUCT the C API version the extension asks for, e.g. v1.2.0
	Platform         string // e.g. linux_amd64
}

// Encode returns the 534-byte footer for m. Each field must be ASCII and at most 32 bytes.
func Encode(m Metadata) ([]byte, error) {
	fields := [fieldCount]string{3: m.ABIType, 4: m.ExtensionVersion, 5: m.APIVersion, 6: m.Platform, 7: "4"}
	out := make([]byte, 0, Size)
	out = append(out, header...)
	for i, f := range fields {
		if len(f) > fieldSize {
			return nil, fmt.Errorf("footer field %d %q: longer than %d bytes", i, f, fieldSize)
		}
		for _, c := range []byte(f) {
			if c == 0 || c > 0x7f {
				return nil, fmt.Errorf("footer field %d %q: not printable ASCII", i, f)
			}
		}
		field := make([]byte, fieldSize)
		copy(field, f)
		out = append(out, field...)
	}
	out = append(out, make([]byte, signatureSize)...)
	return out, nil
}

// Decode reads the footer at the end of an extension file.
func Decode(file []byte) (Metadata, error) {
	if len(file) < Size {
		return Metadata{}, errors.New("shorter than a footer")
	}
	f := file[len(file)-Size:]
	if !bytes.Equal(f[:headerSize], header) {
		return Metadata{}, errors.New("no duckdb_signature header")
	}
	field := func(i int) string {
		b := f[headerSize+i*fieldSize : headerSize+(i+1)*fieldSize]
		return string(bytes.TrimRight(b, "\x00"))
	}
	if field(7) != "4" {
		return Metadata{}, fmt.Errorf("magic %q, want \"4\"", field(7))
	}
	return Metadata{ABIType: field(3), ExtensionVersion: field(4), APIVersion: field(5), Platform: field(6)}, nil
}

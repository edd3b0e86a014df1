package signing

import "bytes"

// The signature formats, as git tells them apart by the signature's first
// line (gpg-interface.c's get_format_by_sig).
const (
	FormatOpenPGP = "openpgp"
	FormatX509    = "x509"
	FormatSSH     = "ssh"
)

// formatOf is the format of an armored signature, "" when git would not
// recognise it.
func formatOf(sig []byte) string {
	switch {
	case bytes.HasPrefix(sig, []byte("-----BEGIN PGP SIGNATURE-----")), bytes.HasPrefix(sig, []byte("-----BEGIN PGP MESSAGE-----")):
		return FormatOpenPGP
	case bytes.HasPrefix(sig, []byte("-----BEGIN SIGNED MESSAGE-----")):
		return FormatX509
	case bytes.HasPrefix(sig, []byte("-----BEGIN SSH SIGNATURE-----")):
		return FormatSSH
	}
	return ""
}

// splitSigned separates a raw commit object into the signature of its
// one gpgsig header and the payload git verifies it against (the commit
// without that header), as git's parse_buffer_signed_by_header does for
// a SHA-1 repository (the caller checks that it is one). ok is false for
// a commit with no signature, and also for anything unusual that git
// might read otherwise (two gpgsig headers, a gpgsig-sha256 header, no
// blank line after the headers): a caller then leaves the commit to git.
func splitSigned(raw []byte) (sig, payload []byte, ok bool) {
	end := bytes.Index(raw, []byte("\n\n"))
	if end < 0 {
		return nil, nil, false
	}
	headers, body := raw[:end+1], raw[end+1:]
	var sigBuf, payBuf bytes.Buffer
	in, seen := false, 0
	for len(headers) > 0 {
		i := bytes.IndexByte(headers, '\n')
		line := headers[:i+1]
		headers = headers[i+1:]
		switch {
		case in && line[0] == ' ':
			sigBuf.Write(line[1:])
			continue
		case bytes.HasPrefix(line, []byte("gpgsig ")):
			seen++
			in = true
			sigBuf.Write(line[len("gpgsig "):])
			continue
		case bytes.HasPrefix(line, []byte("gpgsig")):
			return nil, nil, false // gpgsig-sha256, or a header git may read otherwise
		}
		in = false
		payBuf.Write(line)
	}
	if seen != 1 {
		return nil, nil, false
	}
	payBuf.Write(body)
	return sigBuf.Bytes(), payBuf.Bytes(), true
}

// gitRefuses reports whether git, asked for the signature of the raw
// commit (%G?), would end the whole git log with "bad/incompatible
// signature" instead of judging it: git reads as the signature every
// header named gpgsig (gpgsig-sha256 in a SHA-256 repository) with its
// continuation lines, joined, and dies when that starts with no armor it
// knows (parse_buffer_signed_by_header, then check_signature). Such a
// commit is a stranger's, and one of them stopped the check of every
// commit asked about with it.
func gitRefuses(raw []byte, sha256 bool) bool {
	name := []byte("gpgsig ")
	if sha256 {
		name = []byte("gpgsig-sha256 ")
	}
	var sig []byte
	saw, in := false, false
	for len(raw) > 0 && raw[0] != '\n' {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line = raw[:i+1]
		}
		raw = raw[len(line):]
		switch {
		case in && line[0] == ' ':
			sig = append(sig, line[1:]...)
		case bytes.HasPrefix(line, name):
			sig = append(sig, line[len(name):]...)
			saw, in = true, true
		default:
			in = false
		}
	}
	return saw && formatOf(sig) == ""
}

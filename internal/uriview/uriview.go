// Package uriview gives the form of a resource URI that mcperr may write
// where people read: logs, spans, error-tracking tags. A URI can carry
// credentials (db://user:password@host) and data in its query; the view
// keeps what names the resource and drops what does not.
package uriview

import (
	"net/url"
	"strings"
)

// Redacted is what stands for a part of a URI that was left out.
const Redacted = "‹×›"

// Safe returns uri without the password of its user information and, unless
// keepQuery, with its query and fragment replaced by Redacted. A URI that
// does not parse is returned as its scheme and Redacted, or Redacted alone.
func Safe(uri string, keepQuery bool) string {
	u, err := url.Parse(uri)
	if err != nil {
		if i := strings.Index(uri, ":"); i > 0 && !strings.ContainsAny(uri[:i], "/?#@") {
			return uri[:i+1] + Redacted
		}
		return Redacted
	}
	if !keepQuery && u.RawQuery != "" {
		u.RawQuery = Redacted // written as it is, unlike the parts below
	}
	// The password and the fragment are escaped when written: they get a
	// placeholder, replaced with the marker in the written form.
	_, password := u.User.Password()
	fragment := !keepQuery && u.Fragment != ""
	if password {
		u.User = url.UserPassword(u.User.Username(), "x")
	}
	if fragment {
		u.Fragment = "f"
	}
	s := u.String()
	if password {
		s = strings.Replace(s, u.User.Username()+":x@", u.User.Username()+":"+Redacted+"@", 1)
	}
	if fragment {
		s = strings.Replace(s, "#f", "#"+Redacted, 1)
	}
	return s
}

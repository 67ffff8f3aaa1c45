package codes

// Registry holds the codes a server knows: the built-in ones and those the
// application registered with NewRegistry. It is immutable, and safe for
// concurrent use. A nil or zero Registry knows the built-in codes only.
type Registry struct {
	custom map[Code]Info
}

// NewRegistry returns a Registry that knows the built-in codes and the
// given ones. Each must be well formed (UPPER_SNAKE: capital letters,
// digits and single underscores, starting with a letter, at most 64
// characters), have a category, and be new: neither built in nor given
// twice. On any mistake NewRegistry returns a *DefinitionError
// (InvalidCode or DuplicateCode) that says what to fix.
func NewRegistry(infos ...Info) (*Registry, error) {
	custom := make(map[Code]Info, len(infos))
	for _, in := range infos {
		if err := in.validate(); err != nil {
			return nil, err
		}
		_, builtin := lookupBuiltin(in.Code)
		_, twice := custom[in.Code]
		if builtin || twice {
			reason := "the code is given twice; choose another name"
			if builtin {
				reason = "the code is built in; use it as it is or choose another name"
			}
			return nil, &DefinitionError{Mistake: DuplicateCode, Subject: string(in.Code), Reason: reason}
		}
		custom[in.Code] = in
	}
	return &Registry{custom: custom}, nil
}

// Lookup returns what the registry knows of c.
func (r *Registry) Lookup(c Code) (Info, bool) {
	in, ok := lookupBuiltin(c)
	if !ok && r != nil {
		in, ok = r.custom[c]
	}
	return in, ok
}

package codes

// Codes of definition errors for resources and prompts.
const (
	// InvalidResource: a resource or resource template is missing, or its
	// URI or URI template is empty or one the SDK refuses.
	InvalidResource Code = "INVALID_RESOURCE"
	// InvalidPrompt: a prompt is missing or has no name.
	InvalidPrompt Code = "INVALID_PROMPT"
)

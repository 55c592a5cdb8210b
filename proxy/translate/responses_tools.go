package translate

import (
	"encoding/json"
	"slices"
)

// readTools keeps the function tools (built-in and custom tools are dropped,
// see droppedFields) and reads tool_choice. An allowed_tools choice keeps
// only the functions it lists, which is what it means: the model may call
// those. Without function tools left, the choice means nothing and is left
// out, as both targets refuse one alone.
func readTools(tools []responsesTool, raw json.RawMessage) ([]responsesTool, toolChoice, error) {
	choice, allowed, err := readToolChoice(raw)
	if err != nil {
		return nil, toolChoice{}, err
	}
	fns := make([]responsesTool, 0, len(tools))
	for _, t := range tools {
		if (t.Type == "function" || t.Type == "") && (allowed == nil || slices.Contains(allowed, t.Name)) {
			fns = append(fns, t)
		}
	}
	if len(fns) == 0 {
		return nil, toolChoice{}, nil
	}
	return fns, choice, nil
}

// readToolChoice reads "auto", "none", "required", {"type":"function","name"}
// and {"type":"allowed_tools","mode","tools"}; allowed is the names the last
// one lists (nil for the others). A choice that forces a built-in or custom
// tool is refused: the tool is dropped, so the request cannot be honoured.
func readToolChoice(raw json.RawMessage) (choice toolChoice, allowed []string, err error) {
	text, _, _, derr := decodeContent[json.RawMessage](raw)
	switch {
	case isNull(raw):
		return toolChoice{}, nil, nil
	case derr == nil:
		switch text {
		case "auto", "none", "required":
			return toolChoice{mode: text}, nil, nil
		}
		return toolChoice{}, nil, invalid("tool_choice", "unknown tool_choice %q", text)
	}
	var obj struct {
		Type  string          `json:"type"`
		Name  string          `json:"name"`
		Mode  string          `json:"mode"`
		Tools []responsesTool `json:"tools"`
	}
	if json.Unmarshal(raw, &obj) != nil {
		return toolChoice{}, nil, invalid("tool_choice", `must be "auto", "none", "required", {"type":"function","name":…} or {"type":"allowed_tools",…}`)
	}
	switch obj.Type {
	case "function":
		if obj.Name == "" {
			return toolChoice{}, nil, invalid("tool_choice.name", "a function tool_choice needs a name")
		}
		return toolChoice{mode: "function", name: obj.Name}, nil, nil
	case "allowed_tools":
		return allowedTools(obj.Mode, obj.Tools)
	case "custom":
		return toolChoice{}, nil, invalid("tool_choice", "custom (freeform) tools cannot be translated, so the custom tool %q cannot be forced", obj.Name)
	}
	return toolChoice{}, nil, invalid("tool_choice", "tool_choice %q forces one of OpenAI's built-in tools, which only OpenAI models can run", obj.Type)
}

func allowedTools(mode string, tools []responsesTool) (toolChoice, []string, error) {
	if mode != "auto" && mode != "required" {
		return toolChoice{}, nil, invalid("tool_choice.mode", `allowed_tools mode must be "auto" or "required"`)
	}
	names := make([]string, 0, len(tools))
	for _, t := range tools {
		if t.Type == "function" {
			names = append(names, t.Name)
		}
	}
	return toolChoice{mode: mode}, names, nil
}

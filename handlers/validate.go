package handlers

import (
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"unicode"

	"github.com/go-playground/validator/v10"

	"gateway/models"
)

// newValidator returns the validator every body and form goes through. Its
// errors name fields by their JSON name, which is also their form name.
func newValidator() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			return ""
		}
		return name
	})
	for tag, fn := range map[string]func(string) bool{
		"publicname":     isPublicName,
		"baseurl":        isBaseURL,
		"budgetduration": isBudgetDuration,
		"singleline":     isSingleLine,
		"strategy":       isRoutingStrategy,
	} {
		if err := v.RegisterValidation(tag, func(fl validator.FieldLevel) bool { return fn(fl.Field().String()) }); err != nil {
			panic(err) // only for a malformed tag name, fixed at compile time
		}
	}
	// A model entry's limit of 0 would let nothing through: no limit is null.
	if err := v.RegisterValidation("ratelimit", func(fl validator.FieldLevel) bool { return fl.Field().Int() > 0 }); err != nil {
		panic(err)
	}
	return v
}

// validateStruct validates v, returning an inputError that names every bad field.
func (a *App) validateStruct(v any) error {
	return validationError(a.validate.Struct(v))
}

// validateVar validates one value that is not in a struct (a path parameter).
func (a *App) validateVar(field string, v any, tag string) error {
	err := validationError(a.validate.Var(v, tag))
	var input *inputError
	if errors.As(err, &input) {
		for i := range input.fields {
			input.fields[i].Field = field
		}
	}
	return err
}

func validationError(err error) error {
	var ves validator.ValidationErrors
	if !errors.As(err, &ves) {
		return err
	}
	in := &inputError{}
	for _, fe := range ves {
		in.fields = append(in.fields, fieldError{Field: fe.Field(), Message: validationMessage(fe)})
	}
	return in
}

// validationMessage says what a failed rule means. It never repeats the
// value: that may be a secret.
func validationMessage(fe validator.FieldError) string {
	switch fe.Tag() {
	case "required":
		return "is required"
	case "oneof":
		return "must be one of: " + strings.ReplaceAll(fe.Param(), " ", ", ")
	case "gte":
		return "must be " + fe.Param() + " or more"
	case "gt":
		return "must be more than " + fe.Param()
	case "lte":
		return "must be " + fe.Param() + " or less"
	case "max":
		if fe.Kind() == reflect.String {
			return "must be at most " + fe.Param() + " characters long"
		}
		return "must have at most " + fe.Param() + " items"
	case "publicname":
		return "must have no spaces, and * only as its last character"
	case "baseurl":
		return "must be an absolute http:// or https:// URL, without credentials, query or fragment"
	case "budgetduration":
		return "must be a duration such as 30m, 12h, 1d, 7d or 1mo"
	case "singleline":
		return "must not contain control characters or line breaks"
	case "printascii":
		return "must be printable ASCII"
	case "strategy":
		return "must be one of: " + strings.Join(models.RoutingStrategies, ", ")
	case "ratelimit":
		return "must be 1 or more (null is no limit)"
	}
	return fmt.Sprintf("is invalid (%s)", fe.Tag())
}

// isPublicName accepts what clients may send as a model name: no spaces or
// control characters, and * only at the end, where it makes a wildcard route.
func isPublicName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) || (r == '*' && i != len(s)-1) {
			return false
		}
	}
	return true
}

// isBaseURL accepts an absolute http(s) URL. Credentials are refused because
// the URL is shown on pages; the proxy appends paths, so no query or fragment.
func isBaseURL(s string) bool {
	u, err := url.Parse(s)
	if err != nil {
		return false
	}
	return (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.User == nil &&
		u.RawQuery == "" && !u.ForceQuery && u.Fragment == "" && !strings.Contains(s, "#")
}

// isBudgetDuration accepts a budget reset period: 30s, 30m, 12h, 7d, 1mo.
func isBudgetDuration(s string) bool { return models.ValidBudgetPeriod(s) }

// isRoutingStrategy accepts a pool's routing strategy by its name.
func isRoutingStrategy(s string) bool { return slices.Contains(models.RoutingStrategies, s) }

func isSingleLine(s string) bool {
	return !strings.ContainsFunc(s, unicode.IsControl)
}

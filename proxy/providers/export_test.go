package providers_test

import (
	"errors"

	"gateway/proxy/providers"
)

func asTokenError(err error, te **providers.TokenError) bool { return errors.As(err, te) }

package handlers

import (
	"cmp"
	"strings"

	"gateway/models"
	"gateway/proxy/providers"
	"gateway/views"
)

// This file turns providers and provider inputs into what the Providers
// page shows: a row of the list, and the form with the fields of its type.
// A secret is only ever shown as "…" and its last four characters.

// fieldsOf is the fields of typ; none of an unknown type.
func fieldsOf(typ *providers.Type) []providers.Field {
	if typ == nil {
		return nil
	}
	return typ.Fields
}

// factLabels name a type's settings in the list, shorter than the form does.
var factLabels = map[string]string{
	"api_version":       "api-version",
	"region":            "region",
	"aws_access_key_id": "access key id",
	"project":           "project",
	"location":          "location",
}

// secretLabels name a type's secrets in the list.
var secretLabels = map[string]string{
	"api_key":               "key",
	"aws_secret_access_key": "secret key",
	"aws_session_token":     "session token",
	"credentials_json":      "key file",
}

// providerRow is p in the list, used by entries model entries.
func providerRow(p *models.Provider, entries int) views.ProviderRow {
	row := views.ProviderRow{ID: p.ID, Name: p.Name, APIType: p.APIType, BaseURL: p.BaseURL,
		SupportsResponses: p.SupportsResponses, Entries: entries}
	typ, ok := providers.Lookup(p.APIType)
	if !ok {
		// A type this gateway does not know: its api key, as ever.
		row.Secrets = []views.ProviderFact{{Name: "api_key", Label: secretLabels["api_key"], Value: hint(p.APIKeyLast4)}}
		return row
	}
	if p.BaseURL == "" && typ.DefaultBase != nil {
		row.BaseURL, row.BaseURLDefault = typ.DefaultBase(p), true
	}
	in := providerInputOf(p)
	secrets := 0
	for _, f := range typ.Fields {
		if !f.Secret {
			v := *in.field(f.Name)
			row.Facts = append(row.Facts, views.ProviderFact{Name: f.Name, Label: factLabels[f.Name],
				Value: cmp.Or(v, f.Default), Default: v == ""})
			continue
		}
		secrets++
		if secretStored(p, f.Name) {
			row.Secrets = append(row.Secrets, views.ProviderFact{Name: f.Name, Label: secretLabels[f.Name], Value: secretHint(p, f.Name)})
		}
	}
	row.LabelSecrets = secrets > 1
	if p.APIType == models.APITypeAzure {
		// Azure's calls go to a deployment named by the entry's upstream model.
		row.Facts = append(row.Facts, views.ProviderFact{Name: "deployments", Label: "calls",
			Value: strings.TrimRight(row.BaseURL, "/") + "/openai/deployments/{upstream model}"})
	}
	return row
}

// hint is what the admin may see of a secret: "…" and its last four
// characters, "" for a secret too short to show any of.
func hint(last4 string) string {
	if last4 == "" {
		return ""
	}
	return "…" + last4
}

// secretHint is the hint of p's secret named name.
func secretHint(p *models.Provider, name string) string {
	for _, s := range storedSecrets(p) {
		if s.name == name {
			return hint(*s.last4)
		}
	}
	return ""
}

// basePlaceholders show a typical base URL of the types that need one, and
// what an empty one means for the others.
var basePlaceholders = map[string]string{
	models.APITypeOpenAI:    "https://api.openai.com/v1",
	models.APITypeAnthropic: "https://api.anthropic.com",
	models.APITypeAzure:     "https://RESOURCE.openai.azure.com",
	models.APITypeBedrock:   "empty: https://bedrock-runtime.REGION.amazonaws.com",
	models.APITypeGemini:    "empty: https://generativelanguage.googleapis.com",
	models.APITypeVertex:    "empty: by location, such as https://aiplatform.googleapis.com",
}

// secretPlaceholders show the shape of a secret on a form that adds one.
var secretPlaceholders = map[string]string{
	"api_key":               "sk-…",
	"aws_secret_access_key": "40 characters",
	"aws_session_token":     "only with temporary credentials",
	"credentials_json":      `paste the key file: {"type": "service_account", …}`,
}

// providerForm is the form for in, its values as typed or stored, with the
// fields of its type; stored is the provider edited (nil: adding), whose
// stored secrets an empty input keeps.
func providerForm(in providerInput, stored *models.Provider) views.ProviderForm {
	form := views.ProviderForm{
		Values:             views.ProviderValues{Name: in.Name, APIType: in.APIType, BaseURL: in.BaseURL, SupportsResponses: in.SupportsResponses},
		BaseURLRequired:    true,
		BaseURLPlaceholder: cmp.Or(basePlaceholders[in.APIType], "https://api.openai.com/v1"),
	}
	if stored != nil {
		form.ID = stored.ID
	}
	typ, ok := providers.Lookup(in.APIType)
	if !ok {
		return form
	}
	form.BaseURLRequired = typ.DefaultBase == nil
	for _, f := range typ.Fields {
		fld := views.ProviderField{Name: f.Name, Label: f.Label, Secret: f.Secret, Required: f.Required,
			Placeholder: f.Default, KeyFile: f.Name == "credentials_json"}
		if !f.Secret {
			fld.Value = *in.field(f.Name)
		} else if secretStored(stored, f.Name) {
			fld.Stored, fld.StoredHint = true, secretHint(stored, f.Name)
			fld.Placeholder = "empty keeps " + cmp.Or(fld.StoredHint, "the stored one")
		} else {
			fld.Placeholder = secretPlaceholders[f.Name]
		}
		form.Fields = append(form.Fields, fld)
	}
	return form
}

// newProviderForm is the empty add form. It starts at the openai type, the
// most common, so that its key field is there from the start.
func newProviderForm() views.ProviderForm {
	return providerForm(providerInput{APIType: models.APITypeOpenAI}, nil)
}

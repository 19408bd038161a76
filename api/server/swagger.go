package server

import (
	"net/http"
	"net/url"
	"reflect"
	"strings"
)

// Swagger builds the Swagger 2.0 document of v3 from the route table, with definitions generated from the
// response types, so the document lists exactly the routes the dispatcher serves.
func (s *Server) Swagger() map[string]any {
	paths := map[string]map[string]any{}
	defs := map[string]any{}
	for _, rt := range s.routes {
		if !strings.HasPrefix(rt.Pattern, "/api/v3/") {
			continue
		}
		op := map[string]any{
			"operationId": rt.OpID,
			"summary":     rt.Summary,
			"tags":        []string{rt.Tag},
			"parameters":  parameters(rt),
			"responses":   responses(rt, defs),
		}
		if len(rt.Produces) > 0 {
			op["produces"] = rt.Produces
		}
		switch {
		case strings.HasPrefix(rt.Body, "multipart:"):
			op["consumes"] = []string{"multipart/form-data"}
		case rt.Body == "sparql":
			op["consumes"] = []string{"application/sparql-query", "application/x-www-form-urlencoded"}
		case strings.HasPrefix(rt.Body, "json:"):
			op["consumes"] = []string{"application/json"}
		}
		if !rt.Anon {
			op["security"] = []map[string][]string{{"basic": {}}}
		}
		if paths[rt.Pattern] == nil {
			paths[rt.Pattern] = map[string]any{}
		}
		paths[rt.Pattern][strings.ToLower(rt.Method)] = op
	}
	// Request body definitions.
	for _, t := range []any{Group{}, GroupPartial{}, RepositoryDataInput{}, RepositoryPartial{}, PublicationMetaInput{}, PublicationMetaPatch{}, FileInfoInput{}} {
		schemaOf(reflect.TypeOf(t), defs)
	}
	host, base := "", "/"
	if u, err := url.Parse(s.cfg.BaseURL); err == nil && u.Host != "" {
		host = u.Host
		if u.Path != "" {
			base = u.Path
		}
	}
	doc := map[string]any{
		"swagger": "2.0",
		"info": map[string]any{
			"title":       "ldhub REST API",
			"version":     "v3",
			"description": "Linked Data publication hub: groups, repositories, publications and files. Errors are JSON {timestamp, status, error, message, path, details}.",
		},
		"basePath":            base,
		"schemes":             []string{"https", "http"},
		"produces":            []string{"application/json"},
		"securityDefinitions": map[string]any{"basic": map[string]any{"type": "basic", "description": "application or token id and secret"}},
		"paths":               paths,
		"definitions":         defs,
	}
	if host != "" {
		doc["host"] = host
	}
	return doc
}

func (s *Server) swagger(w http.ResponseWriter, r *http.Request, c *call) error {
	return writeJSON(w, s.Swagger())
}

func parameters(rt *route) []map[string]any {
	out := []map[string]any{}
	for _, seg := range rt.segs {
		if isParam(seg) {
			out = append(out, map[string]any{"name": seg[1 : len(seg)-1], "in": "path", "required": true, "type": "string"})
		}
	}
	for _, p := range rt.Query {
		m := map[string]any{"name": p.Name, "in": "query", "required": p.Required, "type": p.Type}
		if p.Type == "integer" {
			m["format"] = "int32"
		}
		if p.Repeat {
			m["type"] = "array"
			m["items"] = map[string]any{"type": p.Type}
			m["collectionFormat"] = "multi"
		}
		if p.Desc != "" {
			m["description"] = p.Desc
		}
		out = append(out, m)
	}
	switch {
	case strings.HasPrefix(rt.Body, "json:"):
		out = append(out, map[string]any{"name": "body", "in": "body", "required": true,
			"schema": map[string]any{"$ref": "#/definitions/" + strings.TrimPrefix(rt.Body, "json:")}})
	case strings.HasPrefix(rt.Body, "multipart:"):
		for _, name := range strings.Split(strings.TrimPrefix(rt.Body, "multipart:"), ",") {
			out = append(out, map[string]any{"name": name, "in": "formData", "required": true, "type": "file"})
		}
	case rt.Body == "sparql":
		out = append(out, map[string]any{"name": "query", "in": "body", "required": true, "schema": map[string]any{"type": "string"}})
	}
	return out
}

func responses(rt *route, defs map[string]any) map[string]any {
	ok := map[string]any{"description": "OK"}
	if rt.Resp != nil {
		ok["schema"] = schemaOf(reflect.TypeOf(rt.Resp), defs)
	} else {
		ok["schema"] = map[string]any{"type": "string", "format": "binary"}
	}
	errResp := func(d string) map[string]any {
		return map[string]any{"description": d, "schema": map[string]any{"$ref": "#/definitions/Error"}}
	}
	defs["Error"] = map[string]any{"type": "object", "properties": map[string]any{
		"timestamp": map[string]any{"type": "integer", "format": "int64"}, "status": map[string]any{"type": "integer"},
		"error": map[string]any{"type": "string"}, "message": map[string]any{"type": "string"},
		"path": map[string]any{"type": "string"}, "details": map[string]any{"type": "object"}}}
	return map[string]any{"200": ok, "400": errResp("bad input"), "401": errResp("missing or wrong credentials"),
		"403": errResp("visible but not allowed"), "404": errResp("not found or not visible")}
}

// schemaOf returns the JSON schema of t, adding named struct types to defs and referring to them.
func schemaOf(t reflect.Type, defs map[string]any) map[string]any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int32:
		return map[string]any{"type": "integer", "format": "int32"}
	case reflect.Int, reflect.Int64:
		return map[string]any{"type": "integer", "format": "int64"}
	case reflect.Float64:
		return map[string]any{"type": "number", "format": "double"}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": schemaOf(t.Elem(), defs)}
	case reflect.Struct:
		name := t.Name()
		if i := strings.IndexByte(name, '['); i >= 0 {
			name = name[:i]
		}
		if _, done := defs[name]; !done {
			defs[name] = nil // a placeholder stops recursion
			props := map[string]any{}
			for i := range t.NumField() {
				f := t.Field(i)
				tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				if tag == "" || tag == "-" {
					continue
				}
				props[tag] = schemaOf(f.Type, defs)
			}
			defs[name] = map[string]any{"type": "object", "properties": props}
		}
		return map[string]any{"$ref": "#/definitions/" + name}
	}
	return map[string]any{"type": "object"}
}

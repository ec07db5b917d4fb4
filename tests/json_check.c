/* json_check.c: validates a JSON document against a schema written in a
 * subset of JSON Schema (draft 2020-12), the subset docs/schema/ uses:
 * type (a name or a list), properties, required, additionalProperties
 * (false or a schema), items, enum, const, minimum, $defs and local $ref
 * ("#/$defs/NAME"); title, description, $schema and $id are notes.  Any
 * other keyword is an error, so a schema cannot silently ask for a check
 * this tool does not make.
 *
 * Usage: json_check SCHEMA FILE
 * exits 0 when FILE holds one document the schema accepts, 1 otherwise
 * (the first violation on standard error, with its JSON path). */
#include <json-c/json.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static json_object *root_schema;

static bool fail(const char *path, const char *what, const char *detail)
{
    fprintf(stderr, "json_check: %s: %s%s%s\n", *path ? path : "(document)", what,
            detail ? ": " : "", detail ? detail : "");
    return false;
}

static bool is_type(json_object *v, const char *t)
{
    json_type k = json_object_get_type(v);
    if (strcmp(t, "object") == 0)
        return k == json_type_object;
    if (strcmp(t, "array") == 0)
        return k == json_type_array;
    if (strcmp(t, "string") == 0)
        return k == json_type_string;
    if (strcmp(t, "integer") == 0)
        return k == json_type_int;
    if (strcmp(t, "number") == 0)
        return k == json_type_int || k == json_type_double;
    if (strcmp(t, "boolean") == 0)
        return k == json_type_boolean;
    if (strcmp(t, "null") == 0)
        return k == json_type_null;
    return false;
}

static bool validate(json_object *v, json_object *schema, const char *path);

static bool check_type(json_object *v, json_object *t, const char *path)
{
    if (json_object_is_type(t, json_type_string)) {
        if (is_type(v, json_object_get_string(t)))
            return true;
        return fail(path, "not of type", json_object_get_string(t));
    }
    for (size_t i = 0; i < json_object_array_length(t); i++)
        if (is_type(v, json_object_get_string(json_object_array_get_idx(t, i))))
            return true;
    return fail(path, "not of any type in", json_object_to_json_string(t));
}

static bool check_object(json_object *v, json_object *schema, const char *path)
{
    json_object *props = NULL, *req = NULL, *extra = NULL;
    json_object_object_get_ex(schema, "properties", &props);
    json_object_object_get_ex(schema, "required", &req);
    json_object_object_get_ex(schema, "additionalProperties", &extra);
    if (!json_object_is_type(v, json_type_object))
        return true; /* type says whether it must be one */
    for (size_t i = 0; req && i < json_object_array_length(req); i++) {
        const char *k = json_object_get_string(json_object_array_get_idx(req, i));
        if (!json_object_object_get_ex(v, k, NULL))
            return fail(path, "missing required key", k);
    }
    json_object_object_foreach(v, key, val)
    {
        char sub[512];
        snprintf(sub, sizeof sub, "%s.%s", path, key);
        json_object *ps = NULL;
        if (props && json_object_object_get_ex(props, key, &ps)) {
            if (!validate(val, ps, sub))
                return false;
        } else if (extra && json_object_is_type(extra, json_type_boolean)) {
            if (!json_object_get_boolean(extra))
                return fail(sub, "a key the schema does not list", NULL);
        } else if (extra && !validate(val, extra, sub)) {
            return false;
        }
    }
    return true;
}

static bool resolve(json_object *ref, json_object **out, const char *path)
{
    const char *r = json_object_get_string(ref);
    if (strncmp(r, "#/$defs/", 8) != 0)
        return fail(path, "only #/$defs/NAME references are understood", r);
    json_object *defs;
    if (!json_object_object_get_ex(root_schema, "$defs", &defs) ||
        !json_object_object_get_ex(defs, r + 8, out))
        return fail(path, "no such definition", r);
    return true;
}

static bool validate(json_object *v, json_object *schema, const char *path)
{
    if (!json_object_is_type(schema, json_type_object))
        return fail(path, "a schema must be an object", NULL);
    json_object_object_foreach(schema, kw, arg)
    {
        if (strcmp(kw, "type") == 0) {
            if (!check_type(v, arg, path))
                return false;
        } else if (strcmp(kw, "$ref") == 0) {
            json_object *target;
            if (!resolve(arg, &target, path) || !validate(v, target, path))
                return false;
        } else if (strcmp(kw, "items") == 0) {
            if (json_object_is_type(v, json_type_array))
                for (size_t i = 0; i < json_object_array_length(v); i++) {
                    char sub[512];
                    snprintf(sub, sizeof sub, "%s[%zu]", path, i);
                    if (!validate(json_object_array_get_idx(v, i), arg, sub))
                        return false;
                }
        } else if (strcmp(kw, "enum") == 0) {
            bool found = false;
            for (size_t i = 0; i < json_object_array_length(arg) && !found; i++)
                found = json_object_equal(v, json_object_array_get_idx(arg, i));
            if (!found)
                return fail(path, "not one of", json_object_to_json_string(arg));
        } else if (strcmp(kw, "const") == 0) {
            if (!json_object_equal(v, arg))
                return fail(path, "not the constant", json_object_to_json_string(arg));
        } else if (strcmp(kw, "minimum") == 0) {
            if ((json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)) &&
                json_object_get_double(v) < json_object_get_double(arg))
                return fail(path, "below the minimum", json_object_to_json_string(arg));
        } else if (strcmp(kw, "properties") == 0 || strcmp(kw, "required") == 0 ||
                   strcmp(kw, "additionalProperties") == 0) {
            continue; /* check_object reads the three together */
        } else if (strcmp(kw, "title") != 0 && strcmp(kw, "description") != 0 &&
                   strcmp(kw, "$schema") != 0 && strcmp(kw, "$id") != 0 &&
                   strcmp(kw, "$defs") != 0) {
            return fail(path, "schema keyword outside the subset json_check understands", kw);
        }
    }
    return check_object(v, schema, path);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: json_check SCHEMA FILE\n");
        return 2;
    }
    root_schema = json_object_from_file(argv[1]);
    if (root_schema == NULL) {
        fprintf(stderr, "json_check: %s: %s\n", argv[1], json_util_get_last_err());
        return 2;
    }
    json_object *doc = json_object_from_file(argv[2]);
    if (doc == NULL) {
        fprintf(stderr, "json_check: %s: %s\n", argv[2], json_util_get_last_err());
        json_object_put(root_schema);
        return 1;
    }
    bool ok = validate(doc, root_schema, "");
    json_object_put(doc);
    json_object_put(root_schema);
    return ok ? 0 : 1;
}

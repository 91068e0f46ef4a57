/* SPDX-License-Identifier: MIT */
/* A minimal JSON reader for the vector test: numbers, strings (no escapes beyond \" and \\),
 * true/false/null, arrays and objects, parsed into a tree of jv nodes. */
#ifndef DCCSIM_TEST_JSON_H
#define DCCSIM_TEST_JSON_H
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum jt { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jv {
	enum jt t;
	double num;
	char *str;             /* J_STR value */
	char **keys;           /* J_OBJ */
	struct jv **items;     /* J_ARR items / J_OBJ values */
	int n;
};

struct jp {
	const char *s;
	int err;
};

static void j_ws(struct jp *p) { while (*p->s && isspace((unsigned char)*p->s)) p->s++; }

static struct jv *j_new(enum jt t)
{
	struct jv *v = calloc(1, sizeof(*v));
	v->t = t;
	return v;
}

static char *j_string(struct jp *p)
{
	const char *start;
	char *out, *o;

	if (*p->s != '"') { p->err = 1; return NULL; }
	start = ++p->s;
	while (*p->s && *p->s != '"') {
		if (*p->s == '\\' && p->s[1])
			p->s++;
		p->s++;
	}
	if (*p->s != '"') { p->err = 1; return NULL; }
	out = o = malloc((size_t)(p->s - start) + 1);
	for (const char *c = start; c < p->s; c++) {
		if (*c == '\\')
			c++;
		*o++ = *c;
	}
	*o = 0;
	p->s++;
	return out;
}

static struct jv *j_value(struct jp *p);

static void j_push(struct jv *v, char *key, struct jv *item)
{
	v->items = realloc(v->items, sizeof(*v->items) * (size_t)(v->n + 1));
	v->items[v->n] = item;
	if (v->t == J_OBJ) {
		v->keys = realloc(v->keys, sizeof(*v->keys) * (size_t)(v->n + 1));
		v->keys[v->n] = key;
	}
	v->n++;
}

static struct jv *j_value(struct jp *p)
{
	struct jv *v;
	char *end;

	j_ws(p);
	if (*p->s == '{' || *p->s == '[') {
		int obj = *p->s == '{';
		v = j_new(obj ? J_OBJ : J_ARR);
		p->s++;
		j_ws(p);
		if (*p->s == (obj ? '}' : ']')) { p->s++; return v; }
		while (!p->err) {
			char *key = NULL;
			j_ws(p);
			if (obj) {
				key = j_string(p);
				j_ws(p);
				if (*p->s != ':') { p->err = 1; break; }
				p->s++;
			}
			j_push(v, key, j_value(p));
			j_ws(p);
			if (*p->s == ',') { p->s++; continue; }
			if (*p->s == (obj ? '}' : ']')) { p->s++; break; }
			p->err = 1;
		}
		return v;
	}
	if (*p->s == '"') {
		v = j_new(J_STR);
		v->str = j_string(p);
		return v;
	}
	if (!strncmp(p->s, "true", 4) || !strncmp(p->s, "false", 5)) {
		v = j_new(J_BOOL);
		v->num = *p->s == 't';
		p->s += v->num ? 4 : 5;
		return v;
	}
	if (!strncmp(p->s, "null", 4)) {
		p->s += 4;
		return j_new(J_NULL);
	}
	v = j_new(J_NUM);
	v->num = strtod(p->s, &end);
	if (end == p->s)
		p->err = 1;
	p->s = end;
	return v;
}

static struct jv *j_get(const struct jv *o, const char *key)
{
	if (!o || o->t != J_OBJ)
		return NULL;
	for (int i = 0; i < o->n; i++)
		if (!strcmp(o->keys[i], key))
			return o->items[i];
	return NULL;
}

static double j_num(const struct jv *o, const char *key)
{
	const struct jv *v = j_get(o, key);
	if (!v || (v->t != J_NUM && v->t != J_BOOL)) {
		fprintf(stderr, "vectors: missing number '%s'\n", key);
		exit(2);
	}
	return v->num;
}

static struct jv *j_parse_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	long len;
	char *buf;
	struct jp p;
	struct jv *v;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)len + 1);
	if (fread(buf, 1, (size_t)len, f) != (size_t)len) {
		fclose(f);
		return NULL;
	}
	buf[len] = 0;
	fclose(f);
	p.s = buf;
	p.err = 0;
	v = j_value(&p);
	return p.err ? NULL : v;
}
#endif

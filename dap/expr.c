/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A recursive-descent parser for the C expressions of dap/expr.h. Binary
 * operators are parsed by precedence climbing with C's table (C11 6.5);
 * a cast is told from a parenthesised expression the way a C compiler
 * tells it, by asking whether the name is a type. Nesting is bounded so
 * that no input can exhaust the stack.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "dap/expr.h"

#define MAX_DEPTH 200
#define MAX_NAME  256

enum tok {
	T_END,
	T_NAME,
	T_REG,
	T_INT,
	T_FLOAT,
	T_PUNCT, /* p.op holds the character or DAP_OP_* */
	T_ARROW,
	T_BAD,
};

struct parser {
	const char *s; /* the text */
	size_t at;     /* where the next token starts */
	enum tok tok;  /* the current token */
	size_t tok_at; /* and where it starts */
	int op;	       /* T_PUNCT */
	char name[MAX_NAME];
	int64_t ival;
	double fval;
	int is_unsigned, is_char;
	int depth;
	dap_is_type_fn is_type;
	void *arg;
	char *err;
	size_t errlen;
	int failed;
};

static void fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	if (p->failed)
		return;
	p->failed = 1;
	va_start(ap, fmt);
	vsnprintf(p->err, p->errlen, fmt, ap);
	va_end(ap);
}

static int char_escape(struct parser *p, const char *s, size_t *i, int64_t *out)
{
	char c = s[*i];

	if (c != '\\') {
		*out = (unsigned char)c;
		(*i)++;
		return 0;
	}
	(*i)++;
	c = s[(*i)++];
	switch (c) {
	case 'n':
		*out = '\n';
		return 0;
	case 't':
		*out = '\t';
		return 0;
	case 'r':
		*out = '\r';
		return 0;
	case '0':
		*out = 0;
		return 0;
	case 'a':
		*out = '\a';
		return 0;
	case 'b':
		*out = '\b';
		return 0;
	case 'f':
		*out = '\f';
		return 0;
	case 'v':
		*out = '\v';
		return 0;
	case '\\':
	case '\'':
	case '"':
		*out = c;
		return 0;
	default:
		fail(p, "unknown escape '\\%c' at column %zu", c ? c : '0', *i);
		return -1;
	}
}

static void next(struct parser *p)
{
	const char *s = p->s;
	size_t i = p->at;

	while (isspace((unsigned char)s[i]))
		i++;
	p->tok_at = i;
	if (!s[i]) {
		p->tok = T_END;
		p->at = i;
		return;
	}
	if (isalpha((unsigned char)s[i]) || s[i] == '_' || s[i] == '$') {
		size_t n = 0, start = i;
		int reg = s[i] == '$';

		if (reg)
			i++, start++;
		while (isalnum((unsigned char)s[i]) || s[i] == '_') {
			if (n + 1 < MAX_NAME)
				p->name[n++] = s[i];
			i++;
		}
		p->name[n] = 0;
		p->at = i;
		if (i - start >= MAX_NAME || (reg && n == 0)) {
			p->tok = T_BAD;
			fail(p, "bad name at column %zu", p->tok_at + 1);
			return;
		}
		p->tok = reg ? T_REG : T_NAME;
		return;
	}
	if (isdigit((unsigned char)s[i]) || (s[i] == '.' && isdigit((unsigned char)s[i + 1]))) {
		char *end;
		unsigned long long v;
		size_t j = i;

		/* A float has a '.', or an exponent in a decimal number. */
		while (isalnum((unsigned char)s[j]) || s[j] == '.')
			j++;
		if (!(s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) &&
		    (memchr(s + i, '.', j - i) || memchr(s + i, 'e', j - i) ||
		     memchr(s + i, 'E', j - i))) {
			errno = 0;
			p->fval = strtod(s + i, &end);
			if (errno || end == s + i)
				goto bad_number;
			if (*end == 'f' || *end == 'F' || *end == 'l' || *end == 'L')
				end++;
			if (isalnum((unsigned char)*end) || *end == '.')
				goto bad_number;
			p->tok = T_FLOAT;
			p->at = (size_t)(end - s);
			return;
		}
		errno = 0;
		v = strtoull(s + i, &end, 0);
		if (errno)
			goto bad_number;
		p->is_unsigned = 0;
		p->is_char = 0;
		/* Suffixes: u, l, ll in any order and case. */
		while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L') {
			if (*end == 'u' || *end == 'U')
				p->is_unsigned = 1;
			end++;
		}
		if (isalnum((unsigned char)*end) || *end == '_' || *end == '.')
			goto bad_number;
		if (v > INT64_MAX)
			p->is_unsigned = 1;
		p->ival = (int64_t)v;
		p->tok = T_INT;
		p->at = (size_t)(end - s);
		return;
	bad_number:
		p->tok = T_BAD;
		fail(p, "bad number at column %zu", i + 1);
		return;
	}
	if (s[i] == '\'') {
		size_t j = i + 1;

		if (!s[j] || s[j] == '\'' || char_escape(p, s, &j, &p->ival) < 0 || s[j] != '\'') {
			p->tok = T_BAD;
			fail(p, "bad character literal at column %zu", i + 1);
			return;
		}
		p->ival = (int64_t)(signed char)p->ival;
		p->is_char = 1;
		p->is_unsigned = 0;
		p->tok = T_INT;
		p->at = j + 1;
		return;
	}
	{
		static const struct {
			const char *text;
			int op;
		} two[] = {
			{ "<<", DAP_OP_SHL }, { ">>", DAP_OP_SHR }, { "<=", DAP_OP_LE },
			{ ">=", DAP_OP_GE },  { "==", DAP_OP_EQ },  { "!=", DAP_OP_NE },
			{ "&&", DAP_OP_AND }, { "||", DAP_OP_OR },
		};

		if (s[i] == '-' && s[i + 1] == '>') {
			p->tok = T_ARROW;
			p->at = i + 2;
			return;
		}
		for (size_t k = 0; k < sizeof(two) / sizeof(two[0]); k++)
			if (s[i] == two[k].text[0] && s[i + 1] == two[k].text[1]) {
				p->tok = T_PUNCT;
				p->op = two[k].op;
				p->at = i + 2;
				return;
			}
		if (strchr("()[].*&-+!~/%<>^|", s[i])) {
			p->tok = T_PUNCT;
			p->op = s[i];
			p->at = i + 1;
			return;
		}
	}
	p->tok = T_BAD;
	fail(p, "unexpected '%c' at column %zu", s[i], i + 1);
}

static int is_punct(const struct parser *p, int op)
{
	return p->tok == T_PUNCT && p->op == op;
}

static struct dap_expr *node(enum dap_expr_kind kind)
{
	struct dap_expr *e = xcalloc(1, sizeof(*e));

	e->kind = kind;
	return e;
}

void dap_expr_free(struct dap_expr *e)
{
	if (!e)
		return;
	dap_expr_free(e->a);
	dap_expr_free(e->b);
	free(e->name);
	free(e->type.base);
	free(e);
}

/* C's own words that begin or continue a type name. */
static int base_word(const char *w)
{
	static const char *const words[] = { "void",  "char",	  "short",  "int",	"long",
					     "float", "double",	  "signed", "unsigned", "_Bool",
					     "const", "volatile", NULL };

	for (size_t i = 0; words[i]; i++)
		if (strcmp(w, words[i]) == 0)
			return 1;
	return 0;
}

static int tag_word(const char *w)
{
	return strcmp(w, "struct") == 0 || strcmp(w, "union") == 0 || strcmp(w, "enum") == 0;
}

/* Whether the name after a '(' begins a type name. */
static int starts_type(struct parser *p)
{
	if (p->tok != T_NAME)
		return 0;
	if (base_word(p->name) || tag_word(p->name))
		return 1;
	return p->is_type && p->is_type(p->arg, p->name, 0);
}

static void append(char **s, const char *w)
{
	size_t n = *s ? strlen(*s) : 0;

	*s = xrealloc(*s, n + strlen(w) + 2);
	if (n)
		(*s)[n++] = ' ';
	strcpy(*s + n, w);
}

/* type-name: words ('*')*, after the '(' and before the ')'. */
static int type_name(struct parser *p, struct dap_type_name *t)
{
	int words = 0;

	memset(t, 0, sizeof(*t));
	if (p->tok == T_NAME && tag_word(p->name)) {
		append(&t->base, p->name);
		next(p);
		if (p->tok != T_NAME) {
			fail(p, "expected a tag after '%s' at column %zu", t->base, p->tok_at + 1);
			return -1;
		}
		append(&t->base, p->name);
		next(p);
		words = 2;
	} else {
		/* "unsigned long int", "const char", or one typedef name. */
		while (p->tok == T_NAME && (base_word(p->name) || words == 0)) {
			int typedef_name = !base_word(p->name);

			append(&t->base, p->name);
			next(p);
			words++;
			if (typedef_name)
				break;
		}
	}
	/* Trailing qualifiers: "char const *". */
	while (p->tok == T_NAME &&
	       (strcmp(p->name, "const") == 0 || strcmp(p->name, "volatile") == 0)) {
		next(p);
	}
	while (is_punct(p, '*')) {
		t->pointers++;
		next(p);
		while (p->tok == T_NAME &&
		       (strcmp(p->name, "const") == 0 || strcmp(p->name, "volatile") == 0))
			next(p);
	}
	if (!words) {
		fail(p, "expected a type name at column %zu", p->tok_at + 1);
		return -1;
	}
	return 0;
}

static struct dap_expr *expression(struct parser *p, int min_prec);

static struct dap_expr *postfix(struct parser *p, struct dap_expr *e)
{
	while (!p->failed) {
		if (is_punct(p, '.') || p->tok == T_ARROW) {
			struct dap_expr *m =
				node(p->tok == T_ARROW ? DAP_EXPR_ARROW : DAP_EXPR_MEMBER);

			m->a = e;
			e = m;
			next(p);
			if (p->tok != T_NAME) {
				fail(p, "expected a member name at column %zu", p->tok_at + 1);
				break;
			}
			m->name = xstrdup(p->name);
			next(p);
		} else if (is_punct(p, '[')) {
			struct dap_expr *x = node(DAP_EXPR_INDEX);

			x->a = e;
			e = x;
			next(p);
			x->b = expression(p, 0);
			if (!p->failed && !is_punct(p, ']'))
				fail(p, "expected ']' at column %zu", p->tok_at + 1);
			next(p);
		} else {
			break;
		}
	}
	return e;
}

static struct dap_expr *unary(struct parser *p)
{
	struct dap_expr *e = NULL;

	if (p->failed)
		return NULL;
	if (++p->depth > MAX_DEPTH) {
		fail(p, "expression nested too deeply");
		return NULL;
	}
	switch (p->tok) {
	case T_NAME:
		if (base_word(p->name) || tag_word(p->name)) {
			fail(p, "unexpected type name '%s' at column %zu", p->name, p->tok_at + 1);
			break;
		}
		e = node(DAP_EXPR_NAME);
		e->name = xstrdup(p->name);
		next(p);
		e = postfix(p, e);
		break;
	case T_REG:
		e = node(DAP_EXPR_REG);
		e->name = xstrdup(p->name);
		next(p);
		e = postfix(p, e);
		break;
	case T_INT:
		e = node(DAP_EXPR_INT);
		e->ival = p->ival;
		e->is_unsigned = p->is_unsigned;
		e->is_char = p->is_char;
		next(p);
		e = postfix(p, e);
		break;
	case T_FLOAT:
		e = node(DAP_EXPR_FLOAT);
		e->fval = p->fval;
		next(p);
		break;
	case T_PUNCT:
		if (p->op == '(') {
			next(p);
			if (starts_type(p)) {
				e = node(DAP_EXPR_CAST);
				if (type_name(p, &e->type) < 0)
					break;
				if (!is_punct(p, ')')) {
					fail(p, "expected ')' at column %zu", p->tok_at + 1);
					break;
				}
				next(p);
				e->a = unary(p);
				break;
			}
			e = expression(p, 0);
			if (!p->failed && !is_punct(p, ')'))
				fail(p, "expected ')' at column %zu", p->tok_at + 1);
			next(p);
			e = postfix(p, e);
			break;
		}
		if (strchr("*&-+!~", p->op) && p->op < 256) {
			e = node(DAP_EXPR_UNARY);
			e->op = p->op;
			next(p);
			e->a = unary(p);
			break;
		}
		fail(p, "unexpected '%.*s' at column %zu", (int)(p->at - p->tok_at),
		     p->s + p->tok_at, p->tok_at + 1);
		break;
	case T_END:
		fail(p, "expected an expression at the end");
		break;
	case T_ARROW:
		fail(p, "unexpected '->' at column %zu", p->tok_at + 1);
		break;
	default:
		fail(p, "unexpected input at column %zu", p->tok_at + 1);
		break;
	}
	p->depth--;
	return e;
}

/* C11 6.5.5 to 6.5.14: higher binds tighter; 0 is not a binary operator. */
static int precedence(const struct parser *p)
{
	if (p->tok != T_PUNCT)
		return 0;
	switch (p->op) {
	case '*':
	case '/':
	case '%':
		return 10;
	case '+':
	case '-':
		return 9;
	case DAP_OP_SHL:
	case DAP_OP_SHR:
		return 8;
	case '<':
	case '>':
	case DAP_OP_LE:
	case DAP_OP_GE:
		return 7;
	case DAP_OP_EQ:
	case DAP_OP_NE:
		return 6;
	case '&':
		return 5;
	case '^':
		return 4;
	case '|':
		return 3;
	case DAP_OP_AND:
		return 2;
	case DAP_OP_OR:
		return 1;
	default:
		return 0;
	}
}

static struct dap_expr *expression(struct parser *p, int min_prec)
{
	struct dap_expr *e;
	int prec;

	if (++p->depth > MAX_DEPTH) {
		fail(p, "expression nested too deeply");
		return NULL;
	}
	e = unary(p);
	while (!p->failed && (prec = precedence(p)) > min_prec) {
		struct dap_expr *b = node(DAP_EXPR_BINARY);

		b->op = p->op;
		b->a = e;
		e = b;
		next(p);
		/* Left-associative: the right side binds only tighter ones. */
		b->b = expression(p, prec);
	}
	p->depth--;
	return e;
}

struct dap_expr *dap_expr_parse(const char *text, dap_is_type_fn is_type, void *arg, char *err,
				size_t errlen)
{
	struct parser p;
	struct dap_expr *e;
	char dummy[1];

	memset(&p, 0, sizeof(p));
	p.s = text;
	p.is_type = is_type;
	p.arg = arg;
	p.err = err ? err : dummy;
	p.errlen = err ? errlen : sizeof(dummy);
	if (p.errlen)
		p.err[0] = 0;
	next(&p);
	e = expression(&p, 0);
	if (!p.failed && p.tok != T_END)
		fail(&p, "unexpected '%.*s' at column %zu", (int)(p.at - p.tok_at), text + p.tok_at,
		     p.tok_at + 1);
	if (p.failed) {
		dap_expr_free(e);
		return NULL;
	}
	return e;
}

static void put_op(struct hm_buf *b, int op)
{
	static const char *const two[] = { "<<", ">>", "<=", ">=", "==", "!=", "&&", "||" };

	if (op >= DAP_OP_SHL && op <= DAP_OP_OR)
		hm_buf_add(b, two[op - DAP_OP_SHL], 2);
	else
		hm_buf_addf(b, "%c", op);
}

static void format(struct hm_buf *b, const struct dap_expr *e)
{
	switch (e->kind) {
	case DAP_EXPR_NAME:
		hm_buf_addf(b, "%s", e->name);
		break;
	case DAP_EXPR_REG:
		hm_buf_addf(b, "$%s", e->name);
		break;
	case DAP_EXPR_INT:
		if (e->is_unsigned)
			hm_buf_addf(b, "%lluu", (unsigned long long)e->ival);
		else
			hm_buf_addf(b, "%lld", (long long)e->ival);
		break;
	case DAP_EXPR_FLOAT:
		hm_buf_addf(b, "%g", e->fval);
		break;
	case DAP_EXPR_MEMBER:
	case DAP_EXPR_ARROW:
		format(b, e->a);
		hm_buf_addf(b, "%s%s", e->kind == DAP_EXPR_ARROW ? "->" : ".", e->name);
		break;
	case DAP_EXPR_INDEX:
		format(b, e->a);
		hm_buf_addf(b, "[");
		format(b, e->b);
		hm_buf_addf(b, "]");
		break;
	case DAP_EXPR_UNARY:
		hm_buf_addf(b, "(%c", e->op);
		format(b, e->a);
		hm_buf_addf(b, ")");
		break;
	case DAP_EXPR_CAST:
		hm_buf_addf(b, "((%s", e->type.base);
		for (unsigned i = 0; i < e->type.pointers; i++)
			hm_buf_addf(b, "%s*", i ? "" : " ");
		hm_buf_addf(b, ")");
		format(b, e->a);
		hm_buf_addf(b, ")");
		break;
	case DAP_EXPR_BINARY:
		hm_buf_addf(b, "(");
		format(b, e->a);
		hm_buf_addf(b, " ");
		put_op(b, e->op);
		hm_buf_addf(b, " ");
		format(b, e->b);
		hm_buf_addf(b, ")");
		break;
	}
}

char *dap_expr_format(const struct dap_expr *e)
{
	struct hm_buf b;

	hm_buf_init(&b);
	format(&b, e);
	hm_buf_add(&b, "", 1);
	return (char *)b.data;
}

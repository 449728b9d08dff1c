"""Output escaping and template safety (issue 21): HTML and JavaScript escaping added or removed,
autoescape switches and raw-HTML sinks, per ecosystem. Either side of a change counts: removing escaping
is the hole (text a user sent, written into a page unescaped, runs in the next reader's browser), adding
it is how a fix reads. Each language module takes its ecosystem's rules from here; template files, Ruby,
PHP and Java, which no other rule reads, are their own ecosystems.
"""

from __future__ import annotations

from tiergate.tier.content.rule import (
    BUILT_DIRS,
    BUILT_NAMES,
    ContentRule,
    Ecosystem,
    call,
    literal,
    prefix,
    rules,
    word,
)

# Every pattern starts with a literal (see `scan`).


ESCAPING = "HTML escaping"
RAW_HTML = "raw HTML output"

# A sink assigned anything but a quoted constant (`el.innerHTML = "Loading"` writes no one's text).
_ASSIGNED = r"""[ \t]*\+?=(?!=)(?![ \t]*["'])"""
# Hand-written escape tables and the escapes that keep JSON inside a <script> from closing it.
_TABLES = (literal("&lt;"), literal("\\u003c"), literal("\\u003C"))


def _filter(name: str) -> tuple[str, ...]:
    """A template filter after its bar, `|name` or `| name`, as a whole word: not a member after a
    script's `||` (`a || e.message` in an inline script is not Jinja's `|e`)."""
    return tuple(f"{name}(?<={bar}{name})(?<!\\|{bar}{name})(?![A-Za-z0-9_.])" for bar in (r"\|", r"\| "))


PYTHON_ESCAPING: tuple[ContentRule, ...] = (
    *rules(
        ESCAPING,
        word("html.escape"),
        call("escape", after_dot=False),  # markupsafe's, flask's, django's; not `re.escape(`
        call("conditional_escape"),
        call("format_html"),
        word("markupsafe.escape"),
        *_TABLES,
    ),
    # Calls, not names: `is Markup` in a test and a re-export of the name mark nothing safe.
    *rules(RAW_HTML, call("Markup"), call("mark_safe"), call("SafeString"), word("autoescape")),
)

JAVASCRIPT_ESCAPING: tuple[ContentRule, ...] = (
    *rules(ESCAPING, prefix("escapeHtml"), prefix("escapeHTML"), prefix("escape_html"), *_TABLES),
    *rules(
        RAW_HTML,
        word("dangerouslySetInnerHTML"),
        word("innerHTML") + _ASSIGNED,
        word("outerHTML") + _ASSIGNED,
        call("insertAdjacentHTML"),
        call("document.write"),
        literal("v-html"),
        literal("{@html"),
    ),
)

GO_ESCAPING: tuple[ContentRule, ...] = (
    *rules(
        ESCAPING,
        call("html.EscapeString"),
        call("template.HTMLEscapeString"),
        call("template.HTMLEscaper"),
        call("template.JSEscapeString"),
    ),
    # text/template writes values as they are: html/template swapped for it loses all escaping.
    *rules(RAW_HTML, literal('"text/template"'), call("template.HTMLAttr"), call("template.CSS")),
)

RUST_ESCAPING: tuple[ContentRule, ...] = (
    *rules(ESCAPING, word("html_escape"), word("v_htmlescape"), call("encode_text"), call("encode_safe")),
    *rules(RAW_HTML, call("PreEscaped"), word("escape") + r'[ \t]*=[ \t]*"none"'),
)

# Template files: the filters and tags that switch escaping off (or on) where the page is written.
TEMPLATES = Ecosystem(
    "html-templates",
    suffixes=(
        *(".html", ".htm", ".xhtml", ".jinja", ".jinja2", ".j2", ".njk", ".djhtml", ".tmpl", ".tpl"),
        *(".gohtml", ".hbs", ".handlebars", ".mustache", ".ejs", ".erb", ".haml", ".slim", ".liquid"),
        *(".twig", ".vue", ".svelte", ".astro", ".jsp", ".eex", ".heex"),
    ),
    ignore_dirs=BUILT_DIRS,
    rules=(
        *rules(ESCAPING, *_filter("escape"), *_filter("e"), *_filter("forceescape"), *_filter("escapejs")),
        *rules(
            RAW_HTML,
            *_filter("safe"),
            *_filter("raw"),
            word("autoescape"),
            literal("{{{"),  # Handlebars, Mustache
            literal("<%-"),  # EJS
            literal("<%=="),  # ERB
            literal("{!!"),  # Blade
            literal("v-html"),
            literal("{@html"),
            word("html_safe"),
            word("dangerouslySetInnerHTML"),
            word("innerHTML") + _ASSIGNED,
            literal("th:utext"),
            literal('escapeXml="false"'),
            call("Markup"),
            call("mark_safe"),
        ),
    ),
)

RUBY = Ecosystem(
    "ruby",
    suffixes=(".rb", ".ru", ".rake"),
    ignore_dirs=BUILT_DIRS,
    comments=("#",),
    rules=(
        *rules(
            ESCAPING,
            word("escape_html"),  # Rack::Utils, ERB::Util
            word("html_escape"),
            prefix("escapeHTML"),  # CGI
            call("sanitize"),
            *_TABLES,
        ),
        *rules(RAW_HTML, word("html_safe"), call("raw", after_dot=False), word("safe_concat")),
    ),
)

PHP = Ecosystem(
    "php",
    suffixes=(".php", ".phtml"),
    ignore_dirs=BUILT_DIRS,
    comments=("//", "#", "/*", "* "),
    rules=(
        *rules(
            ESCAPING,
            call("htmlspecialchars"),
            call("htmlentities"),
            call("strip_tags"),
            call("esc_html"),
            call("esc_attr"),
            word("ENT_QUOTES"),
            *_TABLES,
        ),
        *rules(RAW_HTML, literal("{!!"), call("html_entity_decode"), *_filter("raw")),
    ),
)

JAVA = Ecosystem(
    "java",
    suffixes=(".java", ".kt", ".scala", ".groovy"),
    ignore_dirs=BUILT_DIRS,
    ignore_names=BUILT_NAMES,
    comments=("//", "/*", "* "),
    rules=(
        *rules(
            ESCAPING,
            prefix("escapeHtml"),  # commons-text StringEscapeUtils.escapeHtml4
            word("HtmlUtils.htmlEscape"),  # Spring
            prefix("Encode.forHtml"),  # OWASP encoder: forHtml, forHtmlAttribute, forHtmlContent
            *_TABLES,
        ),
        # Wicket's switch for a component's escaping; Thymeleaf's th:utext and JSP's escapeXml="false" are
        # in the template files.
        *rules(RAW_HTML, word("setEscapeModelStrings")),
    ),
)

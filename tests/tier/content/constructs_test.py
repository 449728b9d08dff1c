"""Every construct of every ecosystem's content rules found where it is, never in its look-alike. Pure:
synthetic diffs written here, no git. How the lines are read and searched: scan_test.py."""

from __future__ import annotations

import pytest
from testing.unifieddiff import one_line_patch

from tiergate.tier import content
from tiergate.tier.content import scan_patch
from tiergate.tier.content.checkconfig import CHECK_CONFIG, CHECK_RUNS


def constructs(path: str, line: str, side: str = "+") -> set[str]:
    return {h.construct for h in scan_patch(one_line_patch(path, line, side), content.DEFAULT)}


_CRYPTO_LIB = "dependency on a crypto or TLS library"
_AUTH_LIB = "dependency on a token or authentication library"
_COOKIE_LIB = "dependency on a cookie, session or CSRF library"
_REDIRECT_LIB = "dependency on a redirect-following library"
_PROTOCOL_LIB = "dependency on a network or HTTP protocol library"
_ESC = "HTML escaping"
_RAW = "raw HTML output"

# (file, a changed line that must match, its construct, a look-alike that must not match anything)
CASES: list[tuple[str, str, str, str]] = [
    # Python
    ("app/run.py", "subprocess.run(cmd)", "process execution", "subprocess_count = 3"),
    ("app/run.py", "os.system('ls ' + name)", "process execution", "chaos.system_status()"),
    ("app/run.py", "Popen(args, shell=True)", "process execution", "seashell = True"),
    ("app/calc.py", "value = eval(expr)", "eval or unsafe deserialisation", "value = evaluate(expr)"),
    ("app/calc.py", "exec(code, env)", "eval or unsafe deserialisation", "model.eval()"),
    ("app/io.py", "data = pickle.loads(blob)", "eval or unsafe deserialisation", "pickled = True"),
    ("app/io.py", "cfg = yaml.load(f)", "eval or unsafe deserialisation", "cfg = yaml.safe_load(f)"),
    ("app/net.py", "r = get(url, verify=False)", "TLS verification switch", "verify_email(addr)"),
    ("app/net.py", "ctx.verify_mode = ssl.CERT_NONE", "TLS verification switch", "CERT_NONEXISTENT = 1"),
    ("app/hash.py", "h = hashlib.md5(password)", "weak hash", "h = hashlib.sha256(data)"),
    (
        "app/tok.py",
        "token = ''.join(random.choice(ALPHA) for _ in range(9))",
        "randomness for a secret",
        "item = random.choice(items)",
    ),
    ("app/tok.py", "t = secrets.token_hex(16)", "secret generation or comparison", "secretariat.open()"),
    ("app/jwt.py", "claims = jwt.decode(raw, key)", "crypto", "tokenizer.encode(text)"),
    (
        "app/views.py",
        "@login_required",
        "authentication or authorisation check",
        "permissionless = True",
    ),
    ("app/auth.py", "auth = get_netrc_auth(url)", "authentication or authorisation check", "netrc_docs = 1"),
    ("app/sessions.py", "del headers['Authorization']", "credential header", "authorization_docs = 1"),
    ("app/sessions.py", "headers.pop('Cookie', None)", "credential header", "cookie_cutter = 2"),
    ("app/cookies.py", "resp.set_cookie('sid', v)", "cookie or session security", "cookie_cutter(x)"),
    ("app/sessions.py", "response.vary.add('Cookie')", "credential header", "cookies = jar"),
    ("app/sessions.py", "h['Vary'] = 'Cookie'", "cookie or session security", "variance = 1"),
    ("app/forms.py", "csrf_token = form.csrf", "cookie or session security", "circus = 1"),
    ("app/views.py", "resp.headers['Location'] = url", "redirect or Location header", "location = here"),
    ("app/views.py", "return redirect(next_url)", "redirect or Location header", "redirect_uri_docs = ''"),
    (
        "app/db.py",
        'cur.execute(f"SELECT * FROM t WHERE id = {i}")',
        "SQL built from a string",
        "cur.execute('SELECT * FROM t WHERE id = ?', (i,))",
    ),
    (
        "app/files.py",
        "p = os.path.join(root, request.args['f'])",
        "path built from input",
        "p = os.path.join(root, 'static')",
    ),
    ("app/files.py", "return safe_join(root, name)", "path traversal check", "unsafe_joiner = 1"),
    ("app/files.py", "if '..' in parts:", "path traversal check", "x = '...'"),
    ("app/perm.py", "os.chmod(p, 0o777)", "permission bits", "os.chmodx = 1"),
    # JavaScript / TypeScript
    ("lib/run.js", "const cp = require('child_process')", "process execution", "const re = /a/.exec(s)"),
    ("lib/run.ts", "spawn(cmd, args)", "process execution", "spawner(cmd)"),
    ("lib/calc.js", "const f = new Function('a', body)", "eval or dynamic code", "obj.Function(x)"),
    ("lib/calc.js", "eval(src)", "eval or dynamic code", "evaluate(src)"),
    ("lib/utils.js", "if (key === '__proto__') return", "prototype pollution", "const proto = 1"),
    ("lib/http.js", "rejectUnauthorized: false", "TLS verification switch", "unauthorized = true"),
    ("lib/http.js", "delete headers['authorization']", "credential header", "authorizationDocs()"),
    ("lib/xhr.js", "withXSRFToken: true", "cookie or session security", "withXSRF = 1"),
    ("lib/response.js", "this.set('Location', encodeurl(url))", "redirect or Location header", "loc = 1"),
    ("lib/tok.js", "const token = Math.random().toString(36)", "randomness for a secret", "Math.random()"),
    (
        "lib/db.ts",
        "db.query(`SELECT * FROM u WHERE id=${id}`)",
        "SQL built from a string",
        "db.query(sql, [id])",
    ),
    ("lib/fs.js", "fs.chmodSync(p, 0o777)", "permission bits", "chmodder(p)"),
    # Go
    ("cmd/run.go", "out, err := exec.Command(name).Output()", "process execution", "execCommandName := 1"),
    ("net/tls.go", "InsecureSkipVerify: true,", "TLS verification switch", "insecureSkip := 1"),
    ("ctx/ctx.go", 'c.Header("Location", url)', "redirect or Location header", "location := 1"),
    ("ctx/ctx.go", "http.SetCookie(w, cookie)", "cookie or session security", "setCookieName := 1"),
    ("db/db.go", 'db.Query(fmt.Sprintf("SELECT %s", c))', "SQL built from a string", 'db.Query("SELECT 1")'),
    ("fs/fs.go", "os.Chmod(p, 0777)", "permission bits", "chmodCount := 1"),
    # Rust
    ("src/decompress.rs", "let mut cmd = Command::new(&bin);", "process execution", "MyCommand::new();"),
    ("src/tls.rs", ".danger_accept_invalid_certs(true)", "TLS verification switch", ".accept_certs(true)"),
    ("src/fs.rs", "perms.set_mode(0o777);", "permission bits", "let mode = 1;"),
    (
        "src/lib.rs",
        "macro_rules! assert_eq {",
        "outwitting: a macro named as the tests' assertion",
        "macro_rules! assert_approx_eq {",
    ),
    # Python, continued
    (
        "app/files.py",
        "resp.headers['Content-Disposition'] = f'attachment; filename={name}'",
        "Content-Disposition header",
        "disposition = 'attachment'",
    ),
    (
        "app/zip.py",
        "d = zlib.decompressobj(16 + zlib.MAX_WBITS)",
        "decompression limit",
        "decompress_docs = 1",
    ),
    ("app/hosts.py", "app.trusted_hosts = ['example.com']", "host allow-list", "trusted_hostsx = 1"),
    ("app/tools.py", "exe = shutil.which(name)", "program lookup on PATH", "shutil.whichever = 1"),
    (
        "app/http.py",
        "pool.urlopen(method, url, redirect=False)",
        "redirect following switch",
        "redirects = 0",
    ),
    (
        "app/url.py",
        'auth, _, host = authority.rpartition("@")',
        "credentials in a URL (userinfo)",
        'name, _, domain = addr.rpartition(".")',
    ),
    # JavaScript, continued
    (
        "lib/send.js",
        "res.setHeader('Content-Disposition', contentDisposition(file))",
        "Content-Disposition header",
        "contentDispositionDocs()",
    ),
    (
        "lib/auth.js",
        "if (!req.isAuthenticated()) return next()",
        "authentication or authorisation check",
        "authenticatedCount++",
    ),
    ("lib/sign.js", "const mac = crypto.createHmac('sha256', key)", "crypto", "createHmacDocs()"),
    ("lib/hash.js", "crypto.createHash('md5').update(password)", "weak hash", "crypto.createHash('sha256')"),
    (
        "lib/id.js",
        "const id = crypto.randomBytes(16)",
        "secret generation or comparison",
        "randomByteCount = 1",
    ),
    (
        "lib/static.js",
        "const file = path.join(root, req.params.name)",
        "path built from input",
        "path.join(root, 'x')",
    ),
    ("lib/static.js", "if (p.includes('..')) return", "path traversal check", "const dots = '...'"),
    (
        "lib/url.js",
        "const at = authority.lastIndexOf('@')",
        "credentials in a URL (userinfo)",
        "s.indexOf('/')",
    ),
    # Go, continued
    (
        "ctx/ctx.go",
        'c.Header("Content-Disposition", "attachment; filename="+name)',
        "Content-Disposition header",
        'dispositionName := "x"',
    ),
    (
        "auth/auth.go",
        "user, pass, ok := r.BasicAuth()",
        "authentication or authorisation check",
        "basicAuthor := 1",
    ),
    (
        "net/req.go",
        'req.Header.Set("Authorization", "Bearer "+tok)',
        "credential header",
        "authorization := 1",
    ),
    ("auth/mac.go", "mac := hmac.New(sha256.New, key)", "crypto", "hmacNew := 1"),
    (
        "fs/serve.go",
        'p := filepath.Join(dir, c.Param("file"))',
        "path built from input",
        'filepath.Join(dir, "x")',
    ),
    ("fs/serve.go", 'if strings.Contains(p, "..") {', "path traversal check", 'dots := "..."'),
    ("run/run.go", "bin, err := exec.LookPath(name)", "program lookup on PATH", "lookPathCount := 1"),
    ("auth/tok.go", "token := rand.Intn(1000000)", "randomness for a secret", "n := rand.Intn(10)"),
    ("tpl/tpl.go", "return template.HTML(userBio)", "template escaping switched off", "templateHTML := 1"),
    ("hash/h.go", 'import "crypto/md5"', "weak hash or randomness", 'import "crypto/sha256"'),
    # Rust, continued
    (
        "src/db.rs",
        'let q = format!("SELECT * FROM t WHERE id = {}", id);',
        "SQL built from a string",
        'let q = format!("selected {}", n);',
    ),
    (
        "src/http.rs",
        "resp.headers_mut().insert(SET_COOKIE, v);",
        "cookie or session security",
        "let set_cookies = 1;",
    ),
    ("src/http.rs", "headers.remove(header::AUTHORIZATION);", "credential header", "let authorization = 1;"),
    (
        "src/http.rs",
        'let loc = resp.headers().get("Location");',
        "redirect or Location header",
        "let location = 1;",
    ),
    ("src/path.rs", "Component::ParentDir => return None,", "path traversal check", "let parent_dir = 1;"),
    ("src/which.rs", 'let paths = env::var_os("PATH");', "program lookup on PATH", 'env::var_os("HOME");'),
    (
        "src/tok.rs",
        "let token: u64 = thread_rng().gen();",
        "randomness for a secret",
        "let n: u8 = thread_rng().gen();",
    ),
    ("src/key.rs", "let key = OsRng.next_u64();", "secret generation or comparison", "let os_rng_docs = 1;"),
    ("src/hash.rs", "let digest = Md5::digest(data);", "weak hash", "let md5sum_docs = 1;"),
    # Denial of service, parsers and proxies (issue 12's missed fixes, as constructs)
    (
        "app/forms.py",
        "if size > self.max_form_memory_size:",
        "request size limit",
        "max_form_memory_size = 500_000",
    ),
    (
        "app/forms.py",
        "raise RequestEntityTooLarge()",
        "request size limit",
        "from .exceptions import RequestEntityTooLarge",
    ),
    (
        "app/multipart.py",
        "at = self.buffer.find(self.boundary)",
        "multipart body parsing",
        "self.boundary = boundary",
    ),
    (
        "app/response.py",
        "if self._decoder.has_unconsumed_tail:",
        "decompression limit",
        "has_tail = True",
    ),
    (
        "app/response.py",
        "out = inflater.decompress(chunk, max_length=limit)",
        "decompression limit",
        "name = field(max_length=40)",
    ),
    (
        "app/proxy.py",
        "ip = environ['X-Forwarded-For'].split(',')[0]",
        "client address from proxy headers",
        "forwarded_for = None",
    ),
    (
        "app/wsgi.py",
        "app.wsgi_app = ProxyFix(app.wsgi_app, x_for=1)",
        "client address from proxy headers",
        "proxy_fixture = 1",
    ),
    (
        "app/rx.py",
        "NUM = re.compile(r'^(\\d+)+$')",
        "regular expression open to backtracking (ReDoS)",
        "NUM = re.compile(r'^(\\d+)$')",
    ),
    (
        "app/json.py",
        "codec = req.mimetype_params.get('charset')",
        "charset chosen by the request",
        "codec = 'utf-8'",
    ),
    (
        "app/jar.py",
        "extract_cookies_to_jar(jar, request, response)",
        "cookie jar (cookies and their domains)",
        "extract_cookies_docs = 1",
    ),
    ("app/jar.py", "m = _cookie_re.match(header, pos)", "cookie parsing", "cookie_recipe = 1"),
    (
        "app/auth.py",
        "host = parsed.netloc.split(':')[0]",
        "URL host parsed by hand",
        "host = parsed.hostname",
    ),
    (
        "app/zipped.py",
        "where = tempfile.gettempdir()",
        "temporary file in a shared directory",
        "fd, name = tempfile.mkstemp()",
    ),
    (
        "lib/trim.js",
        "return s.replace(/\\s+$/, '')",
        "regular expression open to backtracking (ReDoS)",
        "return s.replace(/^\\s+/, '')",
    ),
    (
        "lib/rx.ts",
        "const re = /^(a+)+$/",
        "regular expression open to backtracking (ReDoS)",
        "const re = /^(a+)$/",
    ),
    (
        "lib/ip.js",
        "const ip = req.headers['x-forwarded-for']",
        "client address from proxy headers",
        "const forwardedFor = ip",
    ),
    ("lib/app.js", "app.set('trust proxy', 1)", "client address from proxy headers", "app.set('trust', 1)"),
    (
        "lib/http.js",
        "if (total > config.maxContentLength) reject(tooBig)",
        "response size limit",
        "maxContentLength: -1,",
    ),
    ("ctx/ip.go", "if e.isTrustedProxy(ip) {", "client address from proxy headers", "trustedProxyCount := 1"),
    ("ctx/ip.go", 'ip := r.Header.Get("X-Real-IP")', "client address from proxy headers", "realIP := 1"),
    ("ctx/ip.go", "return isLocal(c.RemoteIP())", "client address from proxy headers", "remoteIPs := 1"),
    (
        "ctx/body.go",
        "r.Body = http.MaxBytesReader(w, r.Body, limit)",
        "request size limit",
        "maxBytesRead := 10",
    ),
    (
        "src/proto/role.rs",
        "let len = headers::content_length_parse(&value)?;",
        "HTTP message framing (Content-Length, Transfer-Encoding)",
        "let content_length = 3;",
    ),
    (
        "src/proto/role.rs",
        "is_te_chunked = true;",
        "HTTP message framing (Content-Length, Transfer-Encoding)",
        "let chunk = 1;",
    ),
    (
        "src/proto/decode.rs",
        "*size = size.checked_mul(radix)?;",
        "overflow-checked size arithmetic",
        "let n = a.checked_mul(b)?;",
    ),
    # Manifests: a dependency whose package implements a construct, by whole words of its name
    ("package.json", '"tough-cookie": "^4.1.3",', _COOKIE_LIB, '"cookiecutter": "^2.0.0",'),
    ("package.json", '"follow-redirects": "^1.15.6",', _REDIRECT_LIB, '"redirect": "node redirect.js",'),
    ("package.json", '"@types/jsonwebtoken": "^9.0.0",', _AUTH_LIB, '"author": "TJ <tj@example.com>",'),
    ("package.json", '"crypto-js": "4.2.0",', _CRYPTO_LIB, '"keywords": ["tls", "crypto"],'),
    ("go.mod", "\tgolang.org/x/crypto v0.31.0 // indirect", _CRYPTO_LIB, "\tgolang.org/x/text v0.14.0"),
    ("go.mod", "\tgolang.org/x/net v0.33.0", _PROTOCOL_LIB, "\tgithub.com/x/netlify v1.0.0"),
    ("go.mod", "\tgithub.com/quic-go/quic-go v0.48.2", _PROTOCOL_LIB, "\tgithub.com/x/quickstart v0.1.0"),
    ("package.json", '"http2-wrapper": "^2.2.1",', _PROTOCOL_LIB, '"network": "^0.4.0",'),
    ("requirements.txt", "h2==4.1.0", _PROTOCOL_LIB, "h2o==3.44.0.3"),
    ("Cargo.toml", 'httparse = "1.9"', _PROTOCOL_LIB, 'h2o = "0.1"'),
    ("go.mod", "require github.com/golang-jwt/jwt/v5 v5.2.1", _AUTH_LIB, "\tgithub.com/x/authority v1.0.0"),
    ("go.mod", "\tgithub.com/gorilla/sessions v1.2.2", _COOKIE_LIB, "module github.com/gorilla/sessions"),
    ("go.mod", "\tgithub.com/x/follow-redirects v0.1.0", _REDIRECT_LIB, "\tgithub.com/x/redirector v0.1.0"),
    ("requirements.txt", "cryptography==42.0.4", _CRYPTO_LIB, "tokenizers==0.15.0"),
    ("requirements-dev.txt", "PyJWT[crypto]>=2.4", _AUTH_LIB, "sslyze-docs==1.0  # ssl, jwt"),
    ("pyproject.toml", '    "requests-oauthlib>=1.3",', _AUTH_LIB, '    "authority>=1.3",'),
    ("pyproject.toml", 'flask-session = "^0.8"', _COOKIE_LIB, '    "cookie: tests that set cookies",'),
    ("requirements.txt", "django-redirects==0.6", _REDIRECT_LIB, "-r redirects.txt"),
    (
        "Cargo.toml",
        'rustls = { version = "0.23", default-features = false }',
        _CRYPTO_LIB,
        'tls = ["dep:rustls"]',
    ),
    ("Cargo.toml", "[dev-dependencies.cookie]", _COOKIE_LIB, "[package.metadata.cookie]"),
    ("Cargo.toml", "jsonwebtoken.workspace = true", _AUTH_LIB, 'authority = "0.1"'),
    ("Cargo.toml", 'follow-redirects = "0.1"', _REDIRECT_LIB, "redirect_policy = true"),
    # Secrets, any text file
    ("deploy/key.pem", "-----BEGIN RSA PRIVATE KEY-----", "private key block", "-----BEGIN CERTIFICATE-----"),
    ("ci/env.txt", "AWS_KEY=AKIAABCDEFGHIJKLMNOP", "cloud or service token", "AKIA_DOCS"),
    # Output escaping and raw-HTML sinks (escaping.py), per ecosystem: escaping added or removed, a sink
    ("web/views.py", "text = markupsafe.escape(name)", _ESC, "from markupsafe import escape"),
    ("web/views.py", "return escape(name)", _ESC, "pattern = re.escape(name)"),
    ("web/views.py", "body = html.escape(text, quote=True)", _ESC, "body = html.escaped"),
    ("web/json.py", 'out = out.replace("<", "\\u003c")', _ESC, 'out = out.replace("<", "\\u0030")'),
    ("web/views.py", "return Markup(f'<b>{name}</b>')", _RAW, "return markup_text(name)"),
    ("web/views.py", "html = mark_safe(user_bio)", _RAW, "html = make_safe(user_bio)"),
    ("web/app.py", "env = Environment(autoescape=False)", _RAW, "env = Environment(auto_escape_ok=1)"),
    ("ui/page.js", "el.innerHTML = message", _RAW, "if (el.innerHTML === message) {}"),
    ("ui/Page.jsx", "<div dangerouslySetInnerHTML={{ __html: bio }} />", _RAW, "<div title={bio} />"),
    ("ui/escape.ts", "return escape_html(str, true)", _ESC, "return escapes(str)"),
    ("ui/render.js", "const safe = escapeHtml(name)", _ESC, "const safe = escapes(name)"),
    (
        "ui/page.js",
        "node.insertAdjacentHTML('beforeend', row)",
        _RAW,
        "node.insertAdjacentText('beforeend', row)",
    ),
    ("tpl/tpl.go", 's := html.EscapeString(r.FormValue("q"))', _ESC, "s := strings.ToLower(q)"),
    ("tpl/tpl.go", 'import "text/template"', _RAW, 'import "html/template"'),
    ("src/page.rs", "html! { (PreEscaped(body)) }", _RAW, "html! { (body) }"),
    ("src/page.rs", "let out = html_escape::encode_text(&s);", _ESC, "let out = encode(&s);"),
    ("templates/list.html", "<td>{{ watch.error_text|safe }}</td>", _RAW, "<td>{{ watch.safe_text }}</td>"),
    ("templates/list.html", "{% autoescape false %}", _RAW, "{% block content %}"),
    ("templates/list.html", "<td>{{ comment|e }}</td>", _ESC, "<td>{{ comment|length }}</td>"),
    ("templates/base.jinja", "{{ title | escape }}", _ESC, "{{ title | title }}"),
    ("views/show.hbs", "<p>{{{ post.body }}}</p>", _RAW, "<p>{{ post.body }}</p>"),
    ("views/show.ejs", "<p><%- post.body %></p>", _RAW, "<p><%= post.body %></p>"),
    ("app/views/posts/show.html.erb", "<%== @post.body %>", _RAW, "<%= @post.body %>"),
    ("src/Bio.vue", '<div v-html="bio"></div>', _RAW, '<div v-text="bio"></div>'),
    ("src/routes/+page.svelte", "{@html data.bio}", _RAW, "{data.bio}"),
    ("templates/show.twig", "{{ post.body|raw }}", _RAW, "{{ post.body|rawurlencode }}"),
    (
        "lib/app/base.rb",
        'raise BadRequest, "bad: #{Rack::Utils.escape_html(e.message)}"',
        _ESC,
        "x = escaped",
    ),
    ("app/helpers/bio.rb", "content_tag(:p, bio.html_safe)", _RAW, "content_tag(:p, bio.html_safer)"),
    ("app/helpers/bio.rb", "raw(bio)", _RAW, "draw(bio)"),
    ("src/show.php", "echo htmlspecialchars($name, ENT_QUOTES);", _ESC, "echo $special_chars;"),
    ("resources/views/show.blade.php", "<p>{!! $post->body !!}</p>", _RAW, "<p>{{ $post->body }}</p>"),
    (
        "src/main/java/app/View.java",
        "String s = StringEscapeUtils.escapeHtml4(name);",
        _ESC,
        "String s = name.trim();",
    ),
    (
        "src/main/java/app/View.java",
        "out.print(Encode.forHtml(name));",
        _ESC,
        "out.print(Encoder.format(name));",
    ),
    ("src/main/java/app/Bio.java", "label.setEscapeModelStrings(false);", _RAW, "label.setVisible(false);"),
    (
        "src/main/webapp/show.jsp",
        '<c:out value="${bio}" escapeXml="false"/>',
        _RAW,
        '<c:out value="${bio}"/>',
    ),
    ("templates/show.html", '<p th:utext="${bio}"></p>', _RAW, '<p th:text="${bio}"></p>'),
    ("conf/app.yml", 'db_password: "hunter2x"', "hard-coded password", 'db_password: ""'),
]


@pytest.mark.parametrize(("path", "line", "construct", "lookalike"), CASES)
def test_a_construct_matches_and_its_look_alike_does_not(
    path: str, line: str, construct: str, lookalike: str
) -> None:
    assert construct in constructs(path, line)
    assert constructs(path, lookalike) == set()


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("templates/page.html", "const message = fut.formatted_error || e.message;"),  # a script's ||
        ("templates/page.html", "if (a || e) { done() }"),
        ("sandbox/client.html", 'error.innerHTML = "Invalid JSON in Params";'),  # a constant
        ("ui/page.js", "el.innerHTML = '';"),
        ("tests/test_basic.py", 'assert type(s["m"]) is Markup'),  # a name, not a call
        ("src/flask/__init__.py", "from markupsafe import escape"),  # a re-export
        ("lib/util.py", "rx = re.compile(re.escape(sep))"),
        ("notes.md", "{{ body|safe }} and {{{ raw }}}"),  # prose reads no template rule
        ("lib/app.rb", "# raw(html) would skip escaping"),  # a comment
        ("src/show.php", "// htmlspecialchars($x) is done by the caller"),
    ],
)
def test_escaping_look_alikes_do_not_match(path: str, line: str) -> None:
    assert constructs(path, line) == set()


def test_every_construct_of_every_ecosystem_has_a_case() -> None:
    cased = {
        (eco.name, construct) for path, _, construct, _ in CASES for eco in content.DEFAULT if eco.holds(path)
    }
    # The check-config rules have their cases in checkconfig_test.py, and the tests-weakened rules theirs
    # in testcode_test.py, harness_test.py and outwit_test.py, which hold them to the same test.
    weakened = content.TESTS_WEAKENED
    languages = [eco for eco in content.DEFAULT if eco not in (CHECK_CONFIG, CHECK_RUNS, *weakened)]
    wanted = {(eco.name, rule.construct) for eco in languages for rule in eco.rules}
    assert wanted - cased == set()


@pytest.mark.parametrize("name", ["tokenizer.py", "secretariat.py", "permissionless.py"])
def test_the_seeds_false_positive_words_never_match_in_code(name: str) -> None:
    stem = name.removesuffix(".py")
    for line in (f"import {stem}", f"{stem} = {stem}.{stem}()", f"from x import {stem}"):
        assert constructs(name, line) == set()


def test_language_rules_read_only_their_files() -> None:
    assert constructs("notes.md", "subprocess.run(cmd)") == set()
    # a manifest is read for its dependencies only, and one of a fixture or an example app not at all
    assert constructs("package.json", '"build": "node -e \'eval(src)\'",') == set()
    assert constructs("test/fixtures/app/package.json", '"cookie": "0.7.1",') == set()
    assert constructs("examples/auth/go.mod", "\tgolang.org/x/crypto v0.31.0") == set()
    assert constructs("app.py", "InsecureSkipVerify: true,") == set()
    assert constructs("main.go", "InsecureSkipVerify: true,") == {"TLS verification switch"}

import Foundation
@testable import SyncServer
import Testing

/// WebDAV's pure rules as tables: the `If` header, locks, `PROPPATCH` and the XML bodies.
@Suite struct WebDAVRuleTests {
    static let token = "urn:uuid:6e1a0000-0000-0000-0000-000000000001"
    static let etag = "\"abc\""

    /// (header, holds for a resource with `etag` and `token`, tokens submitted); nil: 400.
    static let ifHeaders: [(String, Bool?, Set<String>)] = [
        ("(<\(token)>)", true, [token]),
        ("(<\(token)> [\(etag)])", true, [token]),
        ("(<DAV:no-lock> [\(etag)])", false, ["DAV:no-lock"]),
        ("(<DAV:no-lock>)", false, ["DAV:no-lock"]),
        ("(<\(token)>) (Not <DAV:no-lock>)", true, [token, "DAV:no-lock"]),
        ("(<\(token)x>) (Not <DAV:no-lock>)", true, [token + "x", "DAV:no-lock"]),
        ("(<\(token)> [\(etag)]) (Not <DAV:no-lock> [\(etag)])", true, [token, "DAV:no-lock"]),
        ("(<\(token)> [\"abd\"]) (Not <DAV:no-lock> [\"abd\"])", false, [token, "DAV:no-lock"]),
        ("(Not <\(token)>)", false, [token]),
        ("([W/\(etag)])", true, []),
        ("<http://h/dav/v/a.md> (<\(token)>)", true, [token]),
        ("<http://h/dav/v/a.md> (<\(token)>) <http://h/dav/v/b.md> ([\"x\"])", true, [token]),
        ("", nil, []),
        ("()", nil, []),
        ("(<\(token)>", nil, []),
        ("<http://h/dav/v/a.md>", nil, []),
        ("(<\(token)>) <http://h/dav/v/a.md> (<\(token)>)", nil, []),
        ("(Nope <\(token)>)", nil, []),
        ("([])", nil, []),
    ]

    @Test(arguments: ifHeaders)
    func theIfHeader(_ header: String, _ holds: Bool?, _ tokens: Set<String>) throws {
        guard let holds else {
            #expect(throws: ServiceError.self) { try DAVIfHeader.parse(header) }
            return
        }
        let parsed = try DAVIfHeader.parse(header)
        // A tagged b.md is another resource, with nothing there.
        let value = parsed.holds { $0?.hasSuffix("b.md") == true ? DAVIfHeader.State(etag: nil, tokens: []) : DAVIfHeader.State(etag: Self.etag, tokens: [Self.token]) }
        #expect(value == holds)
        #expect(parsed.tokens == tokens)
    }

    static let ana = UUID()

    static func lock(_ path: String, deep: Bool = false, exclusive: Bool = true, token: String = "t", holder: UUID = ana) -> DAVLock {
        DAVLock(token: token, path: path, deep: deep, exclusive: exclusive, owner: "", timeoutSeconds: 60, expiresAt: .distantFuture, holder: holder)
    }

    /// (write, locks, submitted, the tokens of the locks in its way).
    static let writes: [(DAVLockRule.Write, [DAVLock], Set<String>, [String])] = [
        (.content("a.md"), [lock("a.md")], [], ["t"]),
        (.content("a.md"), [lock("a.md")], ["t"], []),
        (.content("a.md"), [lock("b.md")], [], []),
        (.content("f/a.md"), [lock("f", deep: true)], [], ["t"]),
        (.content("f/a.md"), [lock("f")], [], []),
        (.membership("f/a.md"), [lock("f")], [], ["t"]),
        (.membership("f/g/a.md"), [lock("f")], [], []),
        (.membership("f/g/a.md"), [lock("", deep: true)], [], ["t"]),
        (.membership("f"), [lock("f/g/a.md")], [], ["t"]),
        (.membership("f"), [lock("fa.md")], [], []),
        (.content("a.md"), [lock("a.md", exclusive: false, token: "s1"), lock("a.md", exclusive: false, token: "s2")], ["s2"], ["s1"]),
        // A token seen in lock discovery is no use to another member of a shared vault.
        (.content("a.md"), [lock("a.md", holder: UUID())], ["t"], ["t"]),
    ]

    @Test(arguments: writes)
    func locksInAWritesWay(_ write: DAVLockRule.Write, _ locks: [DAVLock], _ submitted: Set<String>, _ blocking: [String]) {
        #expect(DAVLockRule.blocking(write, locks, submitted: submitted, by: Self.ana).map(\.token) == blocking)
    }

    /// (path, deep, exclusive, existing, conflicts).
    static let grants: [(String, Bool, Bool, [DAVLock], Bool)] = [
        ("a.md", false, true, [], false),
        ("a.md", false, true, [lock("a.md", exclusive: false)], true),
        ("a.md", false, false, [lock("a.md", exclusive: false)], false),
        ("a.md", false, false, [lock("a.md")], true),
        ("f/a.md", false, true, [lock("f")], false),
        ("f/a.md", false, true, [lock("f", deep: true)], true),
        ("f", true, true, [lock("f/a.md")], true),
        ("f", false, true, [lock("f/a.md")], false),
        ("f", true, true, [lock("fa.md")], false),
    ]

    @Test(arguments: grants)
    func whetherALockIsGranted(_ path: String, _ deep: Bool, _ exclusive: Bool, _ existing: [DAVLock], _ conflicts: Bool) {
        #expect(DAVLockRule.conflicts(path: path, deep: deep, exclusive: exclusive, with: existing) == conflicts)
    }

    @Test(arguments: [
        (nil, 3600), ("Second-600", 600), ("Infinite, Second-4100000000", 86_400), ("Second-999999", 86_400),
        ("Second-0", 3600), ("bogus, Second-30", 30), ("Second-x", 3600),
    ] as [(String?, Int)])
    func lockTimeouts(_ header: String?, _ seconds: Int) {
        #expect(DAVLockRule.timeout(header) == seconds)
    }

    static let ns = "http://example.com/neon/litmus/"
    static func foo(_ name: String) -> DAVProperty { DAVProperty(namespace: ns, name: name) }

    @Test func aPropertyUpdateKeepsItsOrderAndItsValuesAsXML() throws {
        let body = """
            <?xml version="1.0" encoding="utf-8" ?><propertyupdate xmlns='DAV:'>
            <remove><prop><removeset xmlns='\(Self.ns)'/></prop></remove>
            <set><prop><t:valnspace xmlns:t='\(Self.ns)'><foo xmlns='http://bar' a="1&amp;">x &lt; y</foo>tail</t:valnspace></prop></set>
            <set><prop><nonamespace xmlns="">&#65536;</nonamespace></prop></set>
            </propertyupdate>
            """
        #expect(try PropertyUpdate.parse(Data(body.utf8)) == [
            .remove(Self.foo("removeset")),
            .set(Self.foo("valnspace"), "<foo xmlns=\"http://bar\" a=\"1&amp;\">x &lt; y</foo>tail"),
            .set(DAVProperty(namespace: "", name: "nonamespace"), "\u{10000}"),
        ])
        for bad in ["<foo>", "<D:propfind xmlns:D=\"DAV:\"/>", "<D:propertyupdate xmlns:D=\"DAV:\"/>", "<D:propertyupdate xmlns:D=\"DAV:\"><D:set><D:prop><b:x xmlns:b=\"\"/></D:prop></D:set></D:propertyupdate>"] {
            #expect(throws: ServiceError.self, "\(bad)") { try PropertyUpdate.parse(Data(bad.utf8)) }
        }
    }

    @Test func aPropPatchIsAllOrNothing() {
        let (a, b) = (Self.foo("a"), Self.foo("b"))
        #expect(DAVPropPatch.decide([.set(a, "1"), .remove(a)], existing: []) == .apply([a: String?.none]))
        #expect(DAVPropPatch.decide([.remove(a), .set(a, "1"), .set(a, "2"), .set(b, "")], existing: [a]) == .apply([a: "2", b: ""]))
        #expect(DAVPropPatch.decide([.set(a, "1"), .set(.dav("getetag"), "x")], existing: []) == .refuse(
            [.init(property: a, status: 424), .init(property: .dav("getetag"), status: 403)], reason: "{DAV:}getetag is the server's own and cannot be changed"))
        if case .refuse(let answers, _) = DAVPropPatch.decide([.set(a, String(repeating: "x", count: DAVPropPatch.maxValueBytes + 1))], existing: []) {
            #expect(answers == [.init(property: a, status: 403)])
        } else {
            Issue.record("a value over the limit is refused")
        }
        let full = Set((0..<DAVPropPatch.maxPerPath).map { Self.foo("p\($0)") })
        #expect(DAVPropPatch.decide([.set(Self.foo("p0"), "again")], existing: full) == .apply([Self.foo("p0"): "again"]))
        if case .refuse(let answers, _) = DAVPropPatch.decide([.set(Self.foo("p0"), "again"), .set(a, "1")], existing: full) {
            #expect(answers == [.init(property: Self.foo("p0"), status: 424), .init(property: a, status: 403)])
        } else {
            Issue.record("a path past its most properties is refused")
        }
    }

    /// What properties keep is bounded per path and per vault, as values only a quota would
    /// otherwise bound; a patch that shrinks what is kept is always taken.
    @Test func propertiesAreBoundedInBytes() {
        let (a, b) = (Self.foo("a"), Self.foo("b"))
        let big = String(repeating: "x", count: DAVPropPatch.maxValueBytes)
        let fourBig = Set((0..<4).map { Self.foo("v\($0)") })
        let sizes = Dictionary(uniqueKeysWithValues: fourBig.map { ($0, DAVPropPatch.maxValueBytes) })
        if case .refuse(let answers, let reason) = DAVPropPatch.decide([.set(a, "1"), .set(b, big)], existing: fourBig, sizes: sizes) {
            #expect(answers == [.init(property: a, status: 403), .init(property: b, status: 403)] && reason.contains("256 KiB"), "each property that grows: \(answers) \(reason)")
        } else {
            Issue.record("a path past its bytes is refused")
        }
        #expect(DAVPropPatch.decide([.remove(Self.foo("v0")), .set(b, "small")], existing: fourBig, sizes: sizes) == .apply([Self.foo("v0"): String?.none, b: "small"]))
        let nearlyFull = DAVPropPatch.maxBytesPerVault - 10
        if case .refuse(_, let reason) = DAVPropPatch.decide([.set(a, "more than ten bytes")], existing: [], vaultBytes: nearlyFull) {
            #expect(reason.contains("MiB of WebDAV properties"), "\(reason)")
        } else {
            Issue.record("a vault past its bytes is refused")
        }
        #expect(DAVPropPatch.decide([.set(a, "short")], existing: [], vaultBytes: nearlyFull) == .apply([a: "short"]))
    }

    /// What properties keep counts toward the quota: namespace, name and value bytes past the
    /// account's room are refused with 507; a patch that keeps no more is taken when full.
    @Test(arguments: [
        (Int64?.none, "0123456789", true), (Int64(100), "0123456789", true), (Int64(10), "0123456789", false),
        (Int64(0), "", true), (Int64(-5), "", true),
    ])
    func propertiesCountTowardTheQuota(_ room: Int64?, _ value: String, _ taken: Bool) {
        let a = Self.foo("a")  // namespace and name: DAVPropPatch.keptBytes counts them
        let existing: Set<DAVProperty> = value.isEmpty ? [a] : []
        let sizes: [DAVProperty: Int] = value.isEmpty ? [a: 20] : [:]
        let decision = DAVPropPatch.decide([.set(a, value)], existing: existing, sizes: sizes, room: room)
        if taken {
            #expect(decision == .apply([a: value]))
        } else if case .refuse(let answers, let reason) = decision {
            #expect(answers == [.init(property: a, status: 507)] && reason.contains("storage full"), "\(answers) \(reason)")
        } else {
            Issue.record("past the room is refused: \(decision)")
        }
    }

    @Test(arguments: [(0, 0, true), (DAVLockRule.maxPerPath - 1, 0, true), (DAVLockRule.maxPerPath, 0, false), (0, DAVLockRule.maxPerVault, false)])
    func locksAreBounded(_ onPath: Int, _ inVault: Int, _ taken: Bool) {
        #expect((DAVLockRule.refusal(onPath: onPath, inVault: inVault) == nil) == taken)
    }

    @Test func aLockInfo() throws {
        let info = try LockInfo.parse(Data("""
            <?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:shared/></D:lockscope><D:locktype><D:write/></D:locktype>
            <D:owner><D:href>mailto:ana@example.com</D:href></D:owner></D:lockinfo>
            """.utf8))
        #expect(info == LockInfo(exclusive: false, owner: "<href xmlns=\"DAV:\">mailto:ana@example.com</href>"))
        #expect(throws: ServiceError.self) {
            try LockInfo.parse(Data("<D:lockinfo xmlns:D=\"DAV:\"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:read/></D:locktype></D:lockinfo>".utf8))
        }
    }
}

/// `getlastmodified` and `Last-Modified` as RFC 1123 writes them, against Foundation's formatter.
@Suite struct HTTPDateTests {
    @Test(arguments: [0, 1_700_000_000, 951_782_400, 1_709_164_800, 4_102_444_799, 2_147_483_648, -86_401, 1_234_567_890.75] as [Double])
    func aDateIsWrittenAsRFC1123Has(_ seconds: Double) {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let date = Date(timeIntervalSince1970: seconds)
        #expect(DAVListing.httpDate(date) == formatter.string(from: date))
    }
}

/// An href is the vault and path percent-encoded so that parsing it gives them back.
@Suite struct DAVHrefTests {
    @Test(arguments: [
        ("default", "", true, "/dav/default/"),
        ("default", "a.md", false, "/dav/default/a.md"),
        ("My Vault", "notes/deep er/ünï #1?.md", false, "/dav/My%20Vault/notes/deep%20er/%C3%BCn%C3%AF%20%231%3F.md"),
        ("v", "a+b,c;d=e:f@g!h$i&j'k(l)m*n~o_p-q.r", true, "/dav/v/a+b,c;d=e:f@g!h$i&j'k(l)m*n~o_p-q.r/"),
        ("v", "100%/[x]{y}|z\\`^\"<>", false, "/dav/v/100%25/%5Bx%5D%7By%7D%7Cz%5C%60%5E%22%3C%3E"),
    ])
    func anHrefRoundTrips(_ vault: String, _ path: String, _ collection: Bool, _ href: String) throws {
        #expect(DAVTarget.href(vault: vault, path: path, collection: collection) == href)
        #expect(try DAVTarget.parse(href) == DAVTarget(vault: vault, path: path, trailingSlash: collection))
    }
}

/// What a request path names, one rule per row: every method parses its path here, so a name a
/// Mac or an iPhone sends in NFD is the NFC name stored, and a control character is refused.
@Suite struct DAVTargetTests {
    @Test(arguments: [
        ("an NFD name is the NFC name", "/dav/v/Cre%CC%80me.md", DAVTarget(vault: "v", path: "Cr\u{E8}me.md", trailingSlash: false)),
        ("an NFC name stays", "/dav/v/Cr%C3%A8me.md", DAVTarget(vault: "v", path: "Cr\u{E8}me.md", trailingSlash: false)),
        ("an NFD folder and vault", "/dav/Cafe%CC%81/Ma%CC%88rz/", DAVTarget(vault: "Caf\u{E9}", path: "M\u{E4}rz", trailingSlash: true)),
        ("%00 is refused", "/dav/v/a.md%00.png", nil),
        ("a NUL in a folder is refused", "/dav/v/a%00/b.md", nil),
        ("another control character is refused", "/dav/v/a%0Ab.md", nil),
        ("DEL is refused", "/dav/v/a%7Fb.md", nil),
    ] as [(String, String, DAVTarget?)])
    func aPath(_ rule: String, _ raw: String, _ target: DAVTarget?) throws {
        guard let target else {
            #expect(throws: ServiceError.self, "\(rule)") { try DAVTarget.parse(raw) }
            return
        }
        let parsed = try #require(try DAVTarget.parse(raw))
        #expect(parsed == target, "\(rule)")
        #expect(parsed.path.unicodeScalars.elementsEqual(target.path.unicodeScalars), "\(rule): NFC by scalars, not only equal as Swift strings")
    }

    /// (Destination, the request's authorities, carried out here): another server's is `502`.
    @Test(arguments: [
        ("/dav/v/b.md", ["127.0.0.1:8080"], true),
        ("http://127.0.0.1:8080/dav/v/b.md", ["127.0.0.1:8080"], true),
        ("http://LOCALHOST:8080/dav/v/b.md", ["localhost:8080"], true),
        ("https://notes.example/dav/v/b.md", ["notes.example"], true),
        ("http://notes.example/dav/v/b.md", ["notes.example:80"], true),
        ("http://[::1]:8080/dav/v/b.md", ["[::1]:8080"], true),
        ("https://proxy.example/dav/v/b.md", ["127.0.0.1:8080", "proxy.example"], true),
        ("http://evil.example/dav/v/b.md", ["127.0.0.1:8080"], false),
        ("http://127.0.0.1:9090/dav/v/b.md", ["127.0.0.1:8080"], false),
        ("https://notes.example:8443/dav/v/b.md", ["notes.example"], false),
    ])
    func aDestination(_ header: String, _ authorities: [String], _ here: Bool) {
        #expect(DAVTarget.isOnThisServer(header, authorities: authorities) == here, "\(header) with \(authorities)")
    }

    /// Who may send Basic credentials over plain HTTP: (peer, allowed, TLS in front, trusted proxies, taken).
    @Test(arguments: [
        ("127.0.0.1", false, false, [], true),
        ("::1", false, true, [], true),
        ("192.0.2.7", false, false, [], false),
        ("192.0.2.7", false, true, [], false),
        ("192.0.2.7", false, true, ["192.0.2.9"], false),
        ("192.0.2.9", false, true, ["192.0.2.9"], true),
        ("192.0.2.9", false, false, ["192.0.2.9"], false),
        ("192.0.2.7", true, false, [], true),
        (nil, false, true, ["192.0.2.9"], false),
    ] as [(String?, Bool, Bool, Set<String>, Bool)])
    func plainHTTPCredentials(_ peer: String?, _ allowed: Bool, _ tls: Bool, _ proxies: Set<String>, _ taken: Bool) {
        #expect(WebDAVServer.takesCredentials(from: peer, plainHTTPAllowed: allowed, tlsInFront: tls, trustedProxies: proxies) == taken, "\(peer ?? "none")")
    }

    /// RFC 7232 §2.3.2: `If-Match` compares strongly (a weak tag never matches), `If-None-Match` weakly.
    @Test(arguments: [
        ("\"abc\"", false, true), ("W/\"abc\"", false, false), ("\"x\", \"abc\"", false, true), ("*", false, true),
        ("\"abc\"", true, true), ("W/\"abc\"", true, true), ("W/\"abd\"", true, false), ("*", true, true),
    ])
    func anETagList(_ header: String, _ weak: Bool, _ matches: Bool) {
        #expect(WebDAVServer.matches(header, etag: "\"abc\"", weak: weak) == matches, "\(header), weak: \(weak)")
    }
}

/// One escaping rule for pages and WebDAV answers, by bytes: a `<` followed by a combining mark
/// (one character to Swift) is escaped too.
@Suite struct MarkupTests {
    @Test(arguments: [
        ("plain ünïcode text", "plain ünïcode text"),
        ("<script>alert('x') & \"y\"</script>", "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;"),
        ("<\u{0338}b>", "&lt;\u{0338}b&gt;"),
        ("", ""),
        ("&amp;", "&amp;amp;"),
    ])
    func escaping(_ text: String, _ escaped: String) {
        #expect(Markup.escape(text) == escaped)
        #expect(Markup.escape(Substring(text)) == escaped)
    }
}

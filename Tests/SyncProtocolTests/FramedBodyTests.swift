import Foundation
import SyncProtocol
import Testing

/// ``FramedBody``: a push request and a pull answer with their inline bytes after the JSON, and
/// bodies whose parts do not add up refused (a table).
@Suite struct FramedBodyTests {
    static let hash = ContentHash(digest: [UInt8](repeating: 7, count: 32))
    static let note = Data("---\ntitle: A\n---\nbody with \"quotes\" and \u{0}".utf8)
    static let binary = Data((0..<300).map { UInt8($0 % 256) })

    static func file(_ path: String, _ content: Data?) throws -> PushFile {
        PushFile(path: try VaultPath(path), contentHash: hash, sizeBytes: Int64(content?.count ?? 12), baseVersion: nil, content: content)
    }

    @Test func aPushRequestKeepsItsBytesOutsideTheJSON() throws {
        let request = PushRequest(files: [try Self.file("a.md", Self.note), try Self.file("big.pdf", nil), try Self.file("b.bin", Self.binary), try Self.file("empty.md", Data())],
            commitInline: true, cursor: "c1")
        let body = try FramedBody.encode(request)
        let length = Int(body.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        let json = try #require(String(data: body[4..<(4 + length)], encoding: .utf8))
        #expect(!json.contains("content_base64"))
        #expect(json.contains(#""content_length":\#(Self.note.count)"#) && json.contains(#""content_length":300"#) && json.contains(#""content_length":0"#))
        #expect(body[(4 + length)...] == Self.note + Self.binary)
        #expect(try FramedBody.decode(PushRequest.self, from: body) == request)
        // The same request as JSON still carries Base64, for servers without framed bodies.
        let plain = try WireCoding.encoder().encode(request)
        #expect(String(decoding: plain, as: UTF8.self).contains("content_base64"))
        #expect(try WireCoding.decoder().decode(PushRequest.self, from: plain) == request)
    }

    @Test func aPullAnswerKeepsItsBytesOutsideTheJSON() throws {
        let url = try #require(URL(string: "http://localhost/blobs/x"))
        let answer = PullResponse(downloads: [
            Download(path: try VaultPath("a.md"), downloadURL: url, version: 3, contentHash: Self.hash, sizeBytes: Int64(Self.note.count), content: Self.note),
            Download(path: try VaultPath("big.pdf"), downloadURL: url, version: 1, contentHash: Self.hash, sizeBytes: 9_000_000),
        ], missing: [try VaultPath("gone.md")])
        let body = try FramedBody.encode(answer)
        #expect(body.suffix(Self.note.count) == Self.note)
        #expect(try FramedBody.decode(PullResponse.self, from: body) == answer)
    }

    /// Bodies that do not add up: each refused with what is wrong, never read short or long.
    static let malformed: [(String, Data, String)] = [
        ("shorter than its length prefix", Data([0, 0]), "starts with its message's length"),
        ("a length past the body", Data([0, 0, 1, 0]) + Data("{}".utf8), "runs past the body"),
        ("bytes left over", frame(#"{"files":[]}"#, tail: Data("stray".utf8)), "5 bytes after the last file"),
        ("a file's bytes past the body", frame(file(length: "10"), tail: Data("short".utf8)), "run past the body"),
        ("a negative length", frame(file(length: "-1"), tail: Data()), "run past the body"),
        ("both Base64 and a length", frame(file(length: "1", base64: "QQ=="), tail: Data("A".utf8)), "not both"),
    ]

    static func frame(_ json: String, tail: Data) -> Data {
        let bytes = Data(json.utf8)
        return withUnsafeBytes(of: UInt32(bytes.count).bigEndian) { Data($0) } + bytes + tail
    }

    static func file(length: String, base64: String? = nil) -> String {
        let content = base64.map { #","content_base64":"\#($0)""# } ?? ""
        return #"{"files":[{"path":"a.md","content_hash":"\#(hash.rawValue)","size_bytes":1,"base_version":null,"content_length":\#(length)\#(content)}]}"#
    }

    @Test(arguments: malformed) func bodiesThatDoNotAddUpAreRefused(_ c: (String, Data, String)) {
        do {
            _ = try FramedBody.decode(PushRequest.self, from: c.1)
            Issue.record("\(c.0): decoded")
        } catch {
            #expect(String(describing: error).contains(c.2), "\(c.0): \(error)")
        }
    }

    /// A length in plain JSON names no bytes: refused, not read as an empty file.
    @Test func aLengthOutsideAFramedBodyIsRefused() {
        #expect(throws: DecodingError.self) { try WireCoding.decoder().decode(PushRequest.self, from: Data(Self.file(length: "0").utf8)) }
    }

    @Test(arguments: [
        ("application/vnd.vaultsync.framed", true), ("Application/VND.vaultsync.framed; v=1", true),
        ("application/vnd.vaultsync.framed, application/json", true), ("application/json", false), (nil, false), ("application/vnd.vaultsync.framedx", false),
    ] as [(String?, Bool)])
    func mediaTypesAreRecognised(_ c: (String?, Bool)) { #expect(FramedBody.names(c.0) == c.1) }
}

public import Foundation
public import SyncClient
public import SyncProtocol

/// A vault folder linked to a test server, with file helpers.
public struct TestVault: Sendable {
    public let root: URL
    public let engine: SyncEngine

    public init(root: URL, engine: SyncEngine) {
        self.root = root
        self.engine = engine
    }

    /// Links a new temporary folder as another device of `user`.
    public static func link(_ user: TestUser, deviceName: String) async throws -> TestVault {
        let root = URL(fileURLWithPath: "/tmp/vaultsync-vault-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let engine = try await SyncEngine.link(root: root, server: user.server.baseURL, email: user.email, password: user.password, deviceName: deviceName)
        return TestVault(root: root, engine: engine)
    }

    /// Links a new temporary folder as another device of `user`, making or opening the vault's
    /// key as `key` says (use ``cheapScrypt`` to create: tests need not pay a real passphrase's cost).
    public static func link(_ user: TestUser, deviceName: String, vault: String? = nil, key: VaultKeyChoice) async throws -> (vault: TestVault, recoveryKey: String?) {
        let root = URL(fileURLWithPath: "/tmp/vaultsync-vault-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let (engine, recoveryKey) = try await SyncEngine.link(
            root: root, server: user.server.baseURL, credential: .password(email: user.email, password: user.password), deviceName: deviceName,
            vault: vault, createVault: vault != nil, key: key)
        return (TestVault(root: root, engine: engine), recoveryKey)
    }

    /// Two devices of `user`, "laptop" and "phone", on the account's default vault: a plain one,
    /// or one the laptop makes encrypted (so that a test runs the same scenario on both).
    public static func linkTwo(_ user: TestUser, encrypted: Bool) async throws -> (TestVault, TestVault) {
        guard encrypted else { return (try await link(user, deviceName: "laptop"), try await link(user, deviceName: "phone")) }
        let passphrase = "a long test passphrase"
        let laptop = try await link(user, deviceName: "laptop", key: .create(passphrase: passphrase, scrypt: cheapScrypt)).vault
        let phone = try await link(user, deviceName: "phone", key: .unlock { .passphrase(passphrase) }).vault
        return (laptop, phone)
    }

    /// A server, one user and two linked folders of theirs (of an encrypted vault when
    /// `encrypted`), removed afterwards.
    public static func withTwo(encrypted: Bool = false, _ body: (TestVault, TestVault) async throws -> Void) async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let (a, b) = try await linkTwo(user, encrypted: encrypted)
            defer { a.remove(); b.remove() }
            try await body(a, b)
        }
    }

    /// scrypt parameters that cost a millisecond, not half a second.
    public static var cheapScrypt: ScryptParameters {
        ScryptParameters(salt: Data((0..<16).map { _ in UInt8.random(in: 0...255) }), logN: 10, r: 8, p: 1)
    }

    public func write(_ path: String, _ text: String) throws {
        let url = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    public func read(_ path: String) -> String? {
        (try? Data(contentsOf: root.appendingPathComponent(path))).map { String(decoding: $0, as: UTF8.self) }
    }

    public func delete(_ path: String) throws { try FileManager.default.removeItem(at: root.appendingPathComponent(path)) }

    /// Every synced file (state folder and conflict copies excluded) with its content.
    public func files() throws -> [String: String] {
        var result: [String: String] = [:]
        let enumerator = FileManager.default.enumerator(atPath: root.path)
        while let name = enumerator?.nextObject() as? String {
            if name.hasPrefix(".vaultsync") || name.contains(".conflict-") { continue }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: root.appendingPathComponent(name).path, isDirectory: &isDirectory), !isDirectory.boolValue {
                result[name.precomposedStringWithCanonicalMapping] = read(name)
            }
        }
        return result
    }

    /// Conflict copies in the folder, with their content.
    public func conflictCopies() -> [String: String] {
        var result: [String: String] = [:]
        let enumerator = FileManager.default.enumerator(atPath: root.path)
        while let name = enumerator?.nextObject() as? String {
            if name.contains(".conflict-") && !name.hasPrefix(".vaultsync") { result[name] = read(name) }
        }
        return result
    }

    @discardableResult
    public func sync() async throws -> SyncReport { try await engine.sync() }

    public func remove() { try? FileManager.default.removeItem(at: root) }
}

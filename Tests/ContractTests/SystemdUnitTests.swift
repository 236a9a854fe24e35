import Foundation
import TestSupport
import Testing

/// The systemd user unit in `infra/systemd` passes `systemd-analyze verify`, pointed at the
/// built `vaultsync` (the unit itself expects it in ~/.local/bin).
@Suite struct SystemdUnitTests {
    @Test func theWatchUnitVerifies() async throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let unit = try String(contentsOf: repository.appendingPathComponent("infra/systemd/vaultsync-watch@.service"), encoding: .utf8)
        #expect(unit.contains("ExecStart=%h/.local/bin/vaultsync watch %I"))
        let folder = URL(fileURLWithPath: "/tmp/vaultsync-unit-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let instance = folder.appendingPathComponent("vaultsync-watch@home-me-notes.service")
        try Data(unit.replacingOccurrences(of: "%h/.local/bin/vaultsync", with: try CLIProcess.executable("vaultsync").path).utf8).write(to: instance)
        let verified = try await CLIProcess.run("/usr/bin/systemd-analyze", ["verify", instance.path])
        #expect(verified.exitCode == 0 && verified.stdout.isEmpty && verified.stderr.isEmpty, "\(verified)")
    }

    /// The server's system unit verifies, and systemd's own audit of its sandbox (offline, as the
    /// machines here do not boot systemd) rates its exposure low.
    @Test func theServerUnitVerifiesAndIsHardened() async throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let unit = try String(contentsOf: repository.appendingPathComponent("infra/systemd/vaultsync-server.service"), encoding: .utf8)
        #expect(unit.contains("ExecStart=/usr/local/bin/vaultsync-server serve --data-dir /var/lib/vaultsync"))
        let folder = URL(fileURLWithPath: "/tmp/vaultsync-unit-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent("vaultsync-server.service")
        try Data(unit.replacingOccurrences(of: "/usr/local/bin/vaultsync-server", with: try CLIProcess.executable("vaultsync-server").path).utf8).write(to: copy)
        let verified = try await CLIProcess.run("/usr/bin/systemd-analyze", ["verify", copy.path])
        #expect(verified.exitCode == 0 && verified.stdout.isEmpty && verified.stderr.isEmpty, "\(verified)")
        let audit = try await CLIProcess.run("/usr/bin/systemd-analyze", ["security", "--offline=true", copy.path])
        let level = audit.stdout.components(separatedBy: "Overall exposure level for vaultsync-server.service: ").last.flatMap { Double($0.prefix { $0 == "." || $0.isNumber }) }
        #expect(audit.exitCode == 0 && (level ?? 10) <= 2.0, "\(audit)")
    }
}

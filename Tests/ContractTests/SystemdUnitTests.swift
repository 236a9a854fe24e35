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
}

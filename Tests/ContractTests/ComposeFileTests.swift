import Foundation
import TestSupport
import Testing

/// `infra/docker/compose.yaml` publishes plain HTTP on this machine's loopback only: TLS and the
/// outside world are a reverse proxy's (docs/deployment.md).
@Suite struct ComposeFileTests {
    @Test func everyPublishedPortIsOnLoopback() throws {
        let lines = try Repository.text("infra/docker/compose.yaml").split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        var published: [String] = []
        var inPorts = false
        for line in lines {
            if line.hasPrefix("ports:") { inPorts = true; continue }
            guard inPorts else { continue }
            guard line.hasPrefix("- ") else { inPorts = false; continue }
            published.append(String(line.dropFirst(2).split(separator: "#").first ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "\" ")))
        }
        #expect(!published.isEmpty, "the compose file publishes the server")
        for mapping in published { #expect(mapping.hasPrefix("127.0.0.1:"), "'\(mapping)' is published beyond loopback") }
    }
}

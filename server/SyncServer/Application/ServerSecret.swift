import Crypto
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The server's signing secret: from configuration, or generated once and kept in the data
/// folder (mode 0600) so a restart does not log everyone out or break issued blob URLs.
enum ServerSecret {
    static func load(configured: String?, dataDirectory: URL) throws -> SymmetricKey {
        if let configured {
            guard configured.utf8.count >= 32 else { throw ConfigurationError.invalid("VAULTSYNC_JWT_SECRET must be at least 32 characters") }
            return SymmetricKey(data: Data(configured.utf8))
        }
        let file = dataDirectory.appendingPathComponent("server-secret")
        if let existing = try? String(contentsOf: file, encoding: .utf8), let data = Data(hex: existing.trimmingCharacters(in: .whitespacesAndNewlines)), data.count >= 32 {
            return SymmetricKey(data: data)
        }
        let key = SymmetricKey(size: .bits256)
        let hex = key.withUnsafeBytes { Hex.encode($0) }
        // Created with mode 0600 from the start (no moment in which another account could read it),
        // and only if absent: another instance starting at once keeps the one written first.
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            if errno == EEXIST { return try load(configured: nil, dataDirectory: dataDirectory) }
            throw ConfigurationError.invalid("cannot write the generated secret to \(file.path): \(String(cString: strerror(errno)))")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        try handle.write(contentsOf: Data((hex + "\n").utf8))
        try handle.synchronize()
        return key
    }
}

/// A setting that cannot work.
public enum ConfigurationError: Error, CustomStringConvertible {
    case invalid(String)
    public var description: String {
        switch self {
        case .invalid(let message): message
        }
    }
}

extension Data {
    init?(hex: String) {
        guard hex.count % 2 == 0 else { return nil }
        var bytes = [UInt8]()
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        self.init(bytes)
    }
}

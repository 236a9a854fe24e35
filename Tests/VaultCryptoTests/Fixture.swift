import Foundation

/// The known-answer vectors `docs/encryption-reference.py` writes (`Fixtures/vectors.json`).
enum Fixture {
    static var url: URL { Bundle.module.url(forResource: "vectors", withExtension: "json", subdirectory: "Fixtures")! }

    /// The vectors decoded as `type` (each suite declares the part it reads).
    static func vectors<T: Decodable>(_ type: T.Type) -> T {
        try! JSONDecoder().decode(type, from: Data(contentsOf: url))
    }
}

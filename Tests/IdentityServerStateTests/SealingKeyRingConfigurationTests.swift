import Configuration
import Foundation
import IdentityServerState
import StoreConformance
import Testing

/// The sealing key ring from swift-configuration: its one key, read as a
/// secret, so that an access log shows neither key.
@Suite struct SealingKeyRingConfigurationTests {
    @Test func theRingIsReadAsASecret() throws {
        let newest = Data(repeating: 7, count: 32).base64EncodedString()
        let older = Data(repeating: 9, count: 32).base64EncodedString()
        let recorder = ConfigurationAccessRecorder()
        // The provider does not know the value is secret; the ring's read says so.
        let config = ConfigReader(
            provider: InMemoryProvider(values: [
                "sealing.keys": ConfigValue(.string("k2:\(newest),k1:\(older)"), isSecret: false)
            ]),
            accessReporter: recorder)
        let ring = try #require(try SealingKeyRing(config: config.scoped(to: "sealing")))
        #expect(ring.newest.id == "k2" && ring.key(id: "k1") != nil)
        #expect(!recorder.lines.isEmpty)
        #expect(!recorder.lines.contains { $0.contains(newest) || $0.contains(older) })
    }

    @Test func anAbsentRingIsNilAndABadOneIsAnErrorWithoutTheKey() throws {
        #expect(try SealingKeyRing(config: ConfigReader(provider: InMemoryProvider(values: [:]))) == nil)
        let config = ConfigReader(provider: InMemoryProvider(values: ["keys": "k1:not-base64-SECRETISH"]))
        do {
            _ = try SealingKeyRing(config: config)
            Issue.record("a malformed ring was read")
        } catch {
            #expect(!"\(error)".contains("SECRETISH"))
        }
    }
}

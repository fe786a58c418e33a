import Foundation
import Hummingbird
import Logging
import Prometheus

// The `/metrics` listener of `--metrics-port`, apart from the command's
// start-up logic.
extension TOTPLoginCommand {
    /// The scrape endpoint: its own listener on loopback, so that a proxy
    /// in front of the app never exposes it.
    static func metricsApplication(_ registry: PrometheusCollectorRegistry, port: Int, logger: Logger)
        -> some ApplicationProtocol
    {
        let router = Router()
        router.get("/metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
        return Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port), serverName: nil),
            onServerRunning: { channel in
                FileHandle.standardOutput.write(
                    Data("metrics at http://127.0.0.1:\(channel.localAddress?.port ?? 0)/metrics\n".utf8))
            },
            logger: logger
        )
    }
}

import { networkInterfaces } from 'node:os';
import type { RTCPeerConnection, RTCRtpCodecParameters } from 'werift';
import type { AppConfig } from '../config/config';
import { werift } from './werift';

/** VP8 and Opus only: what every browser, GStreamer and the Node clients send, so one publisher's stream fits every viewer. */
let codecs: { video: RTCRtpCodecParameters[]; audio: RTCRtpCodecParameters[] } | undefined;
function codecsOnce(): NonNullable<typeof codecs> {
  if (!codecs) {
    const { RTCRtpCodecParameters, useNACK, usePLI } = werift();
    codecs = {
      video: [new RTCRtpCodecParameters({ mimeType: 'video/VP8', clockRate: 90000, rtcpFeedback: [useNACK(), usePLI()] })],
      audio: [new RTCRtpCodecParameters({ mimeType: 'audio/opus', clockRate: 48000, channels: 2 })],
    };
  }
  return codecs;
}

const GATHERING_TIMEOUT_MS = 3000;

function isLocalAddress(ip: string): boolean {
  return Object.values(networkInterfaces()).some((list) => list?.some((i) => i.address === ip));
}

/**
 * Builds the relay's peer connections from the media settings. An announced address that belongs to this host
 * (127.0.0.1 in tests, a public interface on a VM) is the only one bound; any other (a 1:1 NAT's public address)
 * replaces the host addresses in the candidates the answer carries, while sockets bind to the host's own.
 */
export class PeerFactory {
  private readonly bindOnly: string | undefined;

  constructor(private readonly media: AppConfig['media']) {
    this.bindOnly = media.publicIp && isLocalAddress(media.publicIp) ? media.publicIp : undefined;
  }

  create(): RTCPeerConnection {
    const { RTCPeerConnection } = werift();
    return new RTCPeerConnection({
      codecs: codecsOnce(),
      // The relay announces its own (or the configured public) address and never needs STUN or TURN itself; werift's
      // default STUN server would cost every session a DNS lookup and, offline, the whole gathering timeout.
      iceServers: [],
      iceUseIpv6: false,
      icePortRange: this.media.udpPorts,
      ...(this.bindOnly ? { iceInterfaceAddresses: { udp4: this.bindOnly }, iceAdditionalHostAddresses: [this.bindOnly] } : {}),
    });
  }

  /** Answers the offer already set as remote description, with every candidate in the SDP (no trickle: WHIP and WHEP clients expect a complete answer). */
  async answer(pc: RTCPeerConnection): Promise<string> {
    await pc.setLocalDescription(await pc.createAnswer());
    if (pc.iceGatheringState !== 'complete') {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, GATHERING_TIMEOUT_MS);
        pc.iceGatheringStateChange.subscribe((state) => {
          if (state !== 'complete') return;
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.announce(pc.localDescription!.sdp);
  }

  private announce(sdp: string): string {
    const ip = this.media.publicIp;
    if (!ip) return sdp;
    const seen = new Set<string>();
    return sdp
      .split('\r\n')
      .filter((line) => {
        if (!line.startsWith('a=candidate:')) return true;
        const parts = line.split(' ');
        if (this.bindOnly) return parts[4] === this.bindOnly;
        if (seen.has(parts[5])) return false;
        seen.add(parts[5]);
        return true;
      })
      .map((line) => {
        if (this.bindOnly || !line.startsWith('a=candidate:')) return line;
        const parts = line.split(' ');
        parts[4] = ip;
        return parts.join(' ');
      })
      .join('\r\n');
  }
}

/**
 * Child process of bench:media: many light WHEP viewers (werift peer connections, no decoder) that play through the
 * service over HTTP as the pages do, and count the video frames that arrive whole: every packet from the frame's
 * first (VP8 start of partition 0) to its last (RTP marker), none missing (a retransmitted one counts once). Decoding 100 pictures on the same two
 * cores as the relay would measure the decoders, not the relay; two wrtc probes in the publisher's process decode.
 */
import { RTCPeerConnection, RtpPacket } from 'werift';

type Pc = RTCPeerConnection;

class LightViewer {
  // One transport for audio and video, as browsers bundle them (werift's default keeps one per media section).
  readonly pc: Pc = new RTCPeerConnection({ iceServers: [], iceUseIpv6: false, bundlePolicy: 'max-bundle' });
  frames = 0;
  /** Frames of which at least one packet arrived. */
  started = 0;
  packets = 0;
  connected = false;
  private ts: number | null = null;
  private startSeq: number | null = null;
  private readonly seen = new Set<number>();

  constructor() {
    this.pc.addTransceiver('video', { direction: 'recvonly' });
    this.pc.addTransceiver('audio', { direction: 'recvonly' });
    this.pc.onTrack.subscribe((track) => {
      if (track.kind === 'video') track.onReceiveRtp.subscribe((rtp) => this.onVideo(rtp));
    });
    this.pc.connectionStateChange.subscribe((s) => (this.connected = s === 'connected'));
  }

  private onVideo(rtp: RtpPacket): void {
    this.packets++;
    const { timestamp, sequenceNumber, marker } = rtp.header;
    if (timestamp !== this.ts) {
      this.started++;
      this.ts = timestamp;
      this.startSeq = null;
      this.seen.clear();
    }
    this.seen.add(sequenceNumber);
    const d = rtp.payload;
    // VP8 payload descriptor: S bit set and partition id 0 on the frame's first packet.
    if (d.length > 0 && (d[0] & 0x10) !== 0 && (d[0] & 0x07) === 0) this.startSeq = sequenceNumber;
    if (marker && this.startSeq !== null && this.seen.size === ((sequenceNumber - this.startSeq) & 0xffff) + 1) this.frames++;
  }

  async play(url: string): Promise<void> {
    await this.pc.setLocalDescription(await this.pc.createOffer());
    if (this.pc.iceGatheringState !== 'complete') {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 2000);
        this.pc.iceGatheringStateChange.subscribe((s) => {
          if (s !== 'complete') return;
          clearTimeout(timer);
          resolve();
        });
      });
    }
    const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/sdp' }, body: this.pc.localDescription!.sdp });
    const body = await res.text();
    if (res.status !== 201) throw new Error(`WHEP answered ${res.status}: ${body}`);
    await this.pc.setRemoteDescription({ type: 'answer', sdp: body });
  }
}

const viewers: LightViewer[] = [];
let failedJoins = 0;
let lastJoinError = '';

type Msg = { id: number; kind: 'join'; whep: string; count: number; concurrency: number } | { id: number; kind: 'sample' };

process.on('message', (msg: Msg) => {
  void (async () => {
    if (msg.kind === 'join') {
      const started = performance.now();
      let left = msg.count;
      const worker = async () => {
        while (left > 0) {
          left--;
          const v = new LightViewer();
          viewers.push(v);
          await v.play(msg.whep).catch((e: Error) => {
            failedJoins++;
            lastJoinError = e.message.slice(0, 200);
          });
        }
      };
      await Promise.all(Array.from({ length: Math.max(1, Math.min(msg.concurrency, msg.count)) }, worker));
      return process.send!({ id: msg.id, joinMs: performance.now() - started });
    }
    process.send!({
      id: msg.id,
      sample: {
        t: performance.timeOrigin + performance.now(),
        cpu: process.cpuUsage(),
        rss: process.memoryUsage().rss,
        frames: viewers.map((v) => v.frames),
        started: viewers.map((v) => v.started),
        connected: viewers.filter((v) => v.connected).length,
        receiving: viewers.filter((v) => v.packets > 0).length,
        states: viewers.reduce<Record<string, number>>((acc, v) => {
          const k = `${v.pc.iceConnectionState}/${v.pc.connectionState}`;
          acc[k] = (acc[k] ?? 0) + 1;
          return acc;
        }, {}),
        failedJoins,
        lastJoinError,
      },
    });
  })().catch((e: Error) => {
    process.stderr.write(`viewers: ${e.stack}\n`);
    process.exit(1);
  });
});

import wrtc, { MediaStreamTrack } from '@roamhq/wrtc';

const { RTCPeerConnection } = wrtc;
const { RTCVideoSource, RTCVideoSink, RTCAudioSource } = wrtc.nonstandard;

export interface SignallingResult {
  status: number;
  location: string | null;
  etag: string | null;
  contentType: string | null;
  retryAfter: string | null;
  body: string;
}

/** The POST of WHIP or WHEP, as OBS or GStreamer send it: the offer with its gathered candidates, no trickle. */
export async function signal(url: string, sdp: string, token?: string): Promise<SignallingResult> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/sdp', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: sdp,
  });
  return {
    status: res.status,
    location: res.headers.get('location'),
    etag: res.headers.get('etag'),
    contentType: res.headers.get('content-type'),
    retryAfter: res.headers.get('retry-after'),
    body: await res.text(),
  };
}

/** Sets a fresh offer as the local description and waits (at most 2 s) for its ICE candidates: no trickle, as OBS sends it. */
export async function gatheredOffer(pc: InstanceType<typeof RTCPeerConnection>): Promise<string> {
  await pc.setLocalDescription(await pc.createOffer());
  if (pc.iceGatheringState !== 'complete') {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 2000);
      pc.addEventListener('icegatheringstatechange', () => {
        if (pc.iceGatheringState === 'complete') {
          clearTimeout(timer);
          resolve();
        }
      });
    });
  }
  return pc.localDescription!.sdp;
}

/**
 * A Node WHIP publisher: synthetic 320×240 video (a moving bar; the frame number in the first luma bytes) at
 * `fps` and a 440 Hz tone. `sentAt` maps a frame number to when it was handed to the encoder.
 */
export class NodePublisher {
  readonly pc = new RTCPeerConnection();
  readonly sentAt = new Map<number, number>();
  private readonly video = new RTCVideoSource();
  private readonly audio = new RTCAudioSource();
  private timers: NodeJS.Timeout[] = [];
  private frame = 0;
  result: SignallingResult | null = null;

  constructor(
    private readonly width = 320,
    private readonly height = 240,
    private readonly fps = 25,
  ) {
    this.pc.addTransceiver(this.video.createTrack(), { direction: 'sendonly' });
    this.pc.addTransceiver(this.audio.createTrack(), { direction: 'sendonly' });
  }

  async publish(url: string, token?: string): Promise<SignallingResult> {
    const offer = await gatheredOffer(this.pc);
    this.result = await signal(url, offer, token);
    if (this.result.status !== 201) return this.result;
    await this.pc.setRemoteDescription({ type: 'answer', sdp: this.result.body });
    this.start();
    return this.result;
  }

  private start(): void {
    const { width, height } = this;
    const data = new Uint8Array((width * height * 3) / 2);
    this.timers.push(
      setInterval(() => {
        const n = ++this.frame;
        data.fill(128);
        const bar = (n * 4) % width;
        for (let y = 0; y < height; y++) data.fill(235, y * width + bar, y * width + Math.min(width, bar + 16));
        this.sentAt.set(n, performance.now());
        this.video.onFrame({ width, height, data });
      }, 1000 / this.fps),
    );
    const samples = new Int16Array(480);
    let t = 0;
    this.timers.push(
      setInterval(() => {
        for (let i = 0; i < samples.length; i++) samples[i] = Math.round(8000 * Math.sin((2 * Math.PI * 440 * t++) / 48000));
        this.audio.onData({ samples, sampleRate: 48000, bitsPerSample: 16, channelCount: 1, numberOfFrames: 480 });
      }, 10),
    );
  }

  close(): void {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    this.pc.close();
  }
}

/** A Node WHEP viewer: counts decoded video frames and audio packets' arrival, as a player would. */
export class NodeViewer {
  readonly pc = new RTCPeerConnection();
  frames = 0;
  width = 0;
  audioTrack = false;
  readonly frameTimes: number[] = [];
  private sinks: Array<{ stop(): void }> = [];
  result: SignallingResult | null = null;

  constructor() {
    this.pc.addTransceiver('video', { direction: 'recvonly' });
    this.pc.addTransceiver('audio', { direction: 'recvonly' });
    this.pc.addEventListener('track', (e: { track: MediaStreamTrack }) => {
      if (e.track.kind === 'audio') {
        this.audioTrack = true;
        return;
      }
      const sink = new RTCVideoSink(e.track);
      sink.onframe = ({ frame }: { frame: { width: number } }) => {
        this.frames++;
        this.width = frame.width;
        this.frameTimes.push(performance.now());
      };
      this.sinks.push(sink);
    });
  }

  async play(url: string, token?: string): Promise<SignallingResult> {
    const offer = await gatheredOffer(this.pc);
    this.result = await signal(url, offer, token);
    if (this.result.status === 201) await this.pc.setRemoteDescription({ type: 'answer', sdp: this.result.body });
    return this.result;
  }

  close(): void {
    for (const s of this.sinks) s.stop();
    this.pc.close();
  }
}

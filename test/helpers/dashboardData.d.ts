export declare const GUILD: string;
export declare const CHANNEL: string;
export declare const THREAD: string;
export declare function generateDataRoot(
  root: string,
  o?: { condensations?: number; entries?: number },
): {
  guild: string;
  channel: string;
  thread: string;
  channelKey: string;
  threadKey: string;
};

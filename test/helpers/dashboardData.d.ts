export declare const GUILD: string;
export declare const CHANNEL: string;
export declare const THREAD: string;
export declare function generateDataRoot(
  root: string,
  o?: {
    condensations?: number;
    entries?: number;
    /** Also #backend's context.json (decisions with status, action items, a question, a playbook) and a log of replies before `now`. */
    knowledge?: boolean;
    now?: number;
  },
): {
  guild: string;
  channel: string;
  thread: string;
  channelKey: string;
  threadKey: string;
};

// The domain's own lifecycle table, for drawing and for enabling buttons (a pure module the bundle takes as it is);
// the fake still decides, and the console shows its answer when it refuses.
export {
  canAdvance,
  CANCELLABLE_STATUSES,
  isCancellable,
  LIFECYCLE,
  ORDER_STATUSES,
  road,
} from '../../src/domain/order-lifecycle-table.js';
import type { OrderStatus } from './api.js';

export const statusLabel = (status: OrderStatus): string => status.toLowerCase().replaceAll('_', ' ');
